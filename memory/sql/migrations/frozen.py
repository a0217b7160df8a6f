"""What the migrations share: column types, MySQL table options and the steps that add a column
or an index where it is missing. Frozen like the migrations: a change here would change what
every migration that uses it does.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, Connection, DateTime, Integer, String, Text, inspect, text
from sqlalchemy.dialects import mysql

# Exact round-trip of any Unicode on MySQL: 4-byte UTF-8 and a binary collation.
MYSQL: dict[str, Any] = {"mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_bin"}
# SQLite autoincrements only an INTEGER PRIMARY KEY; MySQL gets a BIGINT.
RowId = BigInteger().with_variant(Integer(), "sqlite")
# Microsecond timestamps, so ordering by time is stable on MySQL too.
Timestamp = DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
# Replies can be long; MySQL's TEXT stops at 64 KB.
LongText = Text().with_variant(mysql.MEDIUMTEXT(), "mysql", "mariadb")
UserId = String(191)  # 191 x 4 bytes fits InnoDB's index key limit with utf8mb4
# Case-insensitive on MySQL, so its FULLTEXT index matches words whatever their case; the stored
# text still round-trips exactly (utf8mb4).
FactText = Text().with_variant(
    mysql.TEXT(charset="utf8mb4", collation="utf8mb4_unicode_ci"), "mysql", "mariadb"
)


def now() -> datetime:
    """Now in UTC without tzinfo, as timestamps are stored."""
    return datetime.now(UTC).replace(tzinfo=None)


def add_missing_columns(conn: Connection, table: str, columns: dict[str, str]) -> None:
    """ALTER TABLE ... ADD COLUMN for each column (name: its DDL) the table lacks: MySQL
    commits each DDL statement at once, so a migration run again after a crash finds some of
    its columns there already."""
    for column, ddl in columns.items():
        if column not in {c["name"] for c in inspect(conn).get_columns(table)}:
            conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}"))


def add_missing_indexes(conn: Connection, table: str, indexes: dict[str, str]) -> None:
    """CREATE INDEX for each index (name: its columns, comma-separated) the table lacks."""
    existing = {index["name"] for index in inspect(conn).get_indexes(table)}
    for name, columns in indexes.items():
        if name not in existing:
            conn.execute(text(f"CREATE INDEX {name} ON {table} ({columns})"))
