"""Migration 9: the embedding model the vector indexes were built with (one row, "vectors")."""

from __future__ import annotations

from sqlalchemy import Column, Connection, MetaData, String, Table, insert

from memory.sql.migrations.frozen import MYSQL, Timestamp, now

NAME = "the embedding model the vector indexes were built with"

_metadata = MetaData()

_index_model = Table(
    "index_model",
    _metadata,
    Column("name", String(32), primary_key=True),
    Column("embedder", String(64), nullable=True),
    Column("changed_at", Timestamp, nullable=False),
    **MYSQL,
)


def apply(conn: Connection) -> None:
    """Nothing recorded yet (embedder NULL): the indexes are taken to be the configured
    model's, as they were before."""
    _metadata.create_all(conn, checkfirst=True)
    conn.execute(insert(_index_model).values(name="vectors", embedder=None, changed_at=now()))
