"""Migration 16: each training of the pool's retriever keeps plain cosine's score on the entries
it was judged on, so `companion pool` says how the version in use compares with it."""

from __future__ import annotations

from sqlalchemy import Connection

from memory.sql.migrations.frozen import add_missing_columns

NAME = "pool retriever trainings keep plain cosine's score"


def apply(conn: Connection) -> None:
    add_missing_columns(conn, "pool_retrievers", {"cosine_score": "FLOAT NULL"})
