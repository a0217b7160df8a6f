"""The chat platforms' tokens, which `companion run` reads from the environment only (never
from a file someone might commit), checked before anything is loaded."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from bot.errors import ConfigError

TELEGRAM_TOKEN_ENV = "TELEGRAM_BOT_TOKEN"
DISCORD_TOKEN_ENV = "DISCORD_BOT_TOKEN"


@dataclass(frozen=True)
class Tokens:
    telegram: str | None
    discord: str | None


def read_tokens(
    *, telegram: bool, discord: bool, environ: Mapping[str, str] = os.environ
) -> Tokens:
    """The tokens of the frontends asked for, from the environment only."""
    if not (telegram or discord):
        raise ConfigError("Say which frontends to run: --telegram, --discord or both.")
    missing = [name for name, wanted in ((TELEGRAM_TOKEN_ENV, telegram),
                                         (DISCORD_TOKEN_ENV, discord))
               if wanted and not environ.get(name, "").strip()]
    if missing:
        raise ConfigError(
            f"Set the environment variable {' and '.join(missing)} to the bot's token "
            "(see the README: Telegram and Discord)."
        )
    return Tokens(
        telegram=environ[TELEGRAM_TOKEN_ENV].strip() if telegram else None,
        discord=environ[DISCORD_TOKEN_ENV].strip() if discord else None,
    )
