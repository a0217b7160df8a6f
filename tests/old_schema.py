"""Databases as earlier releases left them, to test that migrations upgrade them in place."""

from __future__ import annotations

from sqlalchemy import Connection, insert

from memory.sql.engine import utcnow
from memory.sql.migrations import MIGRATIONS
from memory.sql.tables import schema_migrations


def apply_first(conn: Connection, count: int) -> None:
    """Apply and record only the first `count` migrations."""
    schema_migrations.create(conn)
    for version, name, step in MIGRATIONS[:count]:
        step(conn)
        conn.execute(insert(schema_migrations).values(version=version, name=name,
                                                      applied_at=utcnow()))
