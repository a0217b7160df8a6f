"""What the `companion` subcommands share: settings from the command line, and a companion (or
only its SQL record) opened for one piece of work with every failure turned into a clear line."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, TypeVar

import click

from bot.errors import UserFacingError
from bot.settings import Settings, default_config_path, load_settings

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from bot.app import Companion

T = TypeVar("T")

user_option = click.option(
    "--user", "user", default=None, help="Who is talking (default: setting 'user', 'local')."
)


def load_cli_settings(ctx: click.Context) -> Settings:
    try:
        return load_settings(ctx.obj or default_config_path())
    except UserFacingError as error:
        raise click.ClickException(str(error)) from error


def run_with_companion(settings: Settings, work: Callable[[Companion], Awaitable[T]]) -> T:
    from bot.app import open_companion

    async def runner() -> T:
        async with open_companion(settings) as companion:
            return await work(companion)

    return _run(runner)


def run_with_database(settings: Settings, work: Callable[[AsyncEngine], Awaitable[T]]) -> T:
    """`work` with the SQL record only: a command that reads it answers in a fraction of a
    second, where opening the whole companion loads the models and the vector index."""
    from bot.database import open_database

    async def runner() -> T:
        async with AsyncExitStack() as stack:
            return await work(await open_database(settings, stack))

    return _run(runner)


def _run(runner: Callable[[], Coroutine[Any, Any, T]]) -> T:
    try:
        return asyncio.run(runner())
    except UserFacingError as error:
        raise click.ClickException(str(error)) from error
    except KeyboardInterrupt:
        raise click.exceptions.Exit(130) from None
    except Exception as error:  # the boundary: a clear line for the user, the trace in the log
        logging.getLogger(__name__).exception("companion failed")
        raise click.ClickException(
            f"Something went wrong: {type(error).__name__}: {error}"
        ) from error


