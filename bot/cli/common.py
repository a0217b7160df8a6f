"""What the `companion` subcommands share: settings from the command line, and a companion
opened for one piece of work with every failure turned into a clear line."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import click

from bot.errors import UserFacingError
from bot.settings import Settings, default_config_path, load_settings

if TYPE_CHECKING:
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


