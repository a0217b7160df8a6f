"""SQL storage (SQLite or MySQL/MariaDB) through SQLAlchemy's async Core: one code path."""
