"""The SQL record the settings name (SQLite or MySQL/MariaDB), opened and migrated: all that a
command reading the record needs, without the vector index, the embedder or a model."""

from __future__ import annotations

from contextlib import AsyncExitStack

from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.errors import ConfigError
from bot.settings import Settings
from memory.sql.engine import open_autocommit_engine, open_engine
from memory.sql.migrations import migrate
from memory.sql.planner import write_planner_statistics


async def open_database(settings: Settings, stack: AsyncExitStack) -> AsyncEngine:
    """The engine, migrated, disposed of when `stack` closes. Raises `ConfigError`, naming the
    setting, when the database cannot be opened."""
    settings.resolved_data_dir.mkdir(parents=True, exist_ok=True)
    try:
        engine = open_engine(settings.sql_url)
    except (ArgumentError, ImportError) as error:
        raise ConfigError(f"Invalid setting 'sql.url' ({settings.sql.url!r}): {error}") from error
    stack.push_async_callback(engine.dispose)
    try:
        await migrate(engine)
        if engine.dialect.name == "sqlite":
            async with engine.begin() as conn:
                await conn.run_sync(write_planner_statistics)
    except DBAPIError as error:
        raise ConfigError(
            f"Cannot open the database of setting 'sql.url' ({engine.url!r}): {error.orig}"
        ) from error
    return engine


def open_autocommit(settings: Settings, stack: AsyncExitStack) -> AsyncEngine | None:
    """The engine for statements that need no transaction (see `open_autocommit_engine`),
    disposed of when `stack` closes; call after `open_database` has checked the setting."""
    engine = open_autocommit_engine(settings.sql_url)
    if engine is not None:
        stack.push_async_callback(engine.dispose)
    return engine
