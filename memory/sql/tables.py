"""Table definitions in their current shape; `migrations.py` creates and changes them."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)
from sqlalchemy.dialects import mysql

metadata = MetaData()

# Exact round-trip of any Unicode on MySQL: 4-byte UTF-8 and a binary collation.
_MYSQL = {"mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_bin"}
# SQLite autoincrements only an INTEGER PRIMARY KEY; MySQL gets a BIGINT.
RowId = BigInteger().with_variant(Integer(), "sqlite")
# Microsecond timestamps, so ordering by time is stable on MySQL too.
Timestamp = DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
# Replies can be long; MySQL's TEXT stops at 64 KB.
LongText = Text().with_variant(mysql.MEDIUMTEXT(), "mysql", "mariadb")
UserId = String(191)  # 191 x 4 bytes fits InnoDB's index key limit with utf8mb4

schema_migrations = Table(
    "schema_migrations",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("name", String(100), nullable=False),
    Column("applied_at", Timestamp, nullable=False),
    **_MYSQL,
)

rounds = Table(
    "rounds",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("user_id", UserId, nullable=False),
    Column("conversation_id", UserId, nullable=False),
    Column("persona", String(64), nullable=False),
    Column("user_text", LongText, nullable=False),
    Column("reply_text", LongText, nullable=True),
    Column("status", String(16), nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("replied_at", Timestamp, nullable=True),
    Index("ix_rounds_user_id_id", "user_id", "id"),
    **_MYSQL,
)

profiles = Table(
    "profiles",
    metadata,
    Column("user_id", UserId, primary_key=True),
    Column("persona", String(64), nullable=True),
    Column("updated_at", Timestamp, nullable=False),
    **_MYSQL,
)

topics = Table(
    "topics",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("user_id", UserId, nullable=False),
    Column("label", String(200), nullable=False),
    Column("description", LongText, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("updated_at", Timestamp, nullable=False),
    Index("ix_topics_user_id_updated_at", "user_id", "updated_at"),
    **_MYSQL,
)
