"""Migration 10: what each reply used (Recency, Relevance, Latest_topics...), by id, kept with
its round, so `/why` and `/wrong` work in any process and after a restart."""

from __future__ import annotations

from sqlalchemy import Connection

from memory.sql.migrations.frozen import add_missing_columns

NAME = "what each reply used, kept with its round"


def apply(conn: Connection) -> None:
    add_missing_columns(conn, "rounds", {"used": "TEXT NULL"})
