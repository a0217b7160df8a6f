"""Migration 12: a provisional fact's vector, kept in its row: the few facts no window has
summarized yet are searched by meaning in SQL, and the vector index takes them with their
window's facts (one write per window instead of one per message)."""

from __future__ import annotations

from sqlalchemy import Connection

from memory.sql.migrations.frozen import add_missing_columns, add_missing_indexes

NAME = "provisional facts keep their vectors in their rows"


def apply(conn: Connection) -> None:
    add_missing_columns(conn, "facts", {"vector": "TEXT NULL"})
    # A turn reads a user's active provisional facts: without this, SQLite reads all the user's
    # active facts to find them.
    add_missing_indexes(conn, "facts",
                        {"ix_facts_user_provisional": "user_id, provisional, status"})
