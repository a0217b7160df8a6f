"""Migration 19: an index on each user's facts by origin, so that a turn learns in one indexed
read whether the person taught anything (most never do), and searches their taught facts only
when they did."""

from __future__ import annotations

from sqlalchemy import Connection

from memory.sql.migrations.frozen import add_missing_indexes

NAME = "facts indexed by user and origin"


def apply(conn: Connection) -> None:
    add_missing_indexes(conn, "facts", {"ix_facts_user_origin_status": "user_id, origin, status"})
