"""The chat platforms' tokens, which `companion run` reads from the environment only (never
from a file someone might commit), checked before anything is loaded."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from bot.errors import ConfigError

TELEGRAM_TOKEN_ENV = "TELEGRAM_BOT_TOKEN"
DISCORD_TOKEN_ENV = "DISCORD_BOT_TOKEN"
# What @BotFather gives: the bot's id, a colon, then the secret ("123456789:AAH...", 35 now).
TELEGRAM_TOKEN_SHAPE = re.compile(r"\d+:[A-Za-z0-9_-]{30,}")


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
    tokens = Tokens(
        telegram=environ[TELEGRAM_TOKEN_ENV].strip() if telegram else None,
        discord=environ[DISCORD_TOKEN_ENV].strip() if discord else None,
    )
    if tokens.telegram is not None:
        check_telegram_token(tokens.telegram)
    return tokens


def check_telegram_token(token: str) -> None:
    """Refuse a token that cannot be one (cut short, quoted, the bot's name pasted instead)
    before any connection: Telegram would only answer "Not Found". Never prints the token."""
    if not TELEGRAM_TOKEN_SHAPE.fullmatch(token):
        raise ConfigError(
            f"{TELEGRAM_TOKEN_ENV} does not look like a Telegram bot token: @BotFather gives "
            "digits, a colon, then 30 or more letters, digits, '-' or '_' "
            "(like 123456789:AAH...). Copy the whole token again."
        )
