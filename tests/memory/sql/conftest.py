"""The fixture of the SQL tests: a migrated database, SQLite or the real MariaDB."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import open_engine
from memory.sql.migrations import migrate


@pytest.fixture
async def engine(sql_url: str) -> AsyncIterator[AsyncEngine]:
    engine = open_engine(sql_url)
    await migrate(engine)
    yield engine
    await engine.dispose()
