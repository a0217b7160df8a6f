"""The telegram and discord parts: the bot token, when set, is accepted. Never printed."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from bot.cli.doctor.check import Check
from bot.cli.doctor.timeouts import NETWORK_TIMEOUT
from bot.network import root_cause
from bot.settings import Settings

DISCORD_ME_URL = "https://discord.com/api/v10/users/@me"


async def check_telegram(settings: Settings, environ: Mapping[str, str] = os.environ) -> Check:
    """The token, when set, is accepted by Telegram (getMe). Never printed."""
    from bot.errors import ConfigError
    from bot.tokens import TELEGRAM_TOKEN_ENV, check_telegram_token

    token = environ.get(TELEGRAM_TOKEN_ENV, "").strip()
    if not token:
        return Check("telegram", None, f"{TELEGRAM_TOKEN_ENV} not set (needed only for "
                     "companion run --telegram)", needed_for_chat=False)
    try:  # as `companion run` does: a token of the wrong shape is never sent
        check_telegram_token(token)
    except ConfigError as error:
        return Check("telegram", False, str(error), needed_for_chat=False)
    return _token_check("telegram", TELEGRAM_TOKEN_ENV, "Telegram",
                        await _get(f"{settings.telegram.base_url}{token}/getMe", {}),
                        "the token @BotFather gave")


async def check_discord(environ: Mapping[str, str] = os.environ) -> Check:
    """The token, when set, is accepted by Discord (users/@me). Never printed."""
    from bot.tokens import DISCORD_TOKEN_ENV

    token = environ.get(DISCORD_TOKEN_ENV, "").strip()
    if not token:
        return Check("discord", None, f"{DISCORD_TOKEN_ENV} not set (needed only for "
                     "companion run --discord)", needed_for_chat=False)
    return _token_check("discord", DISCORD_TOKEN_ENV, "Discord",
                        await _get(DISCORD_ME_URL, {"Authorization": f"Bot {token}"}),
                        "the bot's token from the Discord developer portal (Bot, Reset Token)")


async def _get(url: str, headers: dict[str, str]) -> tuple[int, Any] | str:
    """The status and JSON body of a GET, or why there was no answer."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=NETWORK_TIMEOUT) as client:
            response = await client.get(url, headers=headers)
    except httpx.HTTPError as error:  # its message never holds the URL (and so the token)
        return root_cause(error)
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, None


def _token_check(
    part: str, env_name: str, service: str, answer: tuple[int, Any] | str, source: str
) -> Check:
    if isinstance(answer, str):
        return Check(part, None, f"{env_name} present, not checked: no network ({answer})",
                     needed_for_chat=False)
    status, body = answer
    body = body if isinstance(body, dict) else {}
    if status == 200:
        bot = body.get("result", body)  # Telegram wraps its answer in "result"
        name = bot.get("username") if isinstance(bot, dict) else None
        return Check(part, True, f"{env_name} accepted" + (f" (@{name})" if name else ""),
                     needed_for_chat=False)
    said = body.get("description") or body.get("message") or ""
    return Check(part, False, f"{env_name} refused by {service} ({status}"
                 + (f": {said})" if said else ")"),
                 f"set {env_name} to {source} (needed only for companion run --{part})",
                 needed_for_chat=False)
