"""Migration 11: provisional facts, the user's statements of a round kept the moment it is
stored, until the window's summary replaces them."""

from __future__ import annotations

from sqlalchemy import Connection

from memory.sql.migrations.frozen import add_missing_columns

NAME = "provisional facts, kept at once until their window is summarized"


def apply(conn: Connection) -> None:
    add_missing_columns(conn, "facts", {"provisional": "BOOLEAN NOT NULL DEFAULT 0"})
