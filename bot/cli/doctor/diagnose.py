"""Every part's check, in order: one `Check` each, never an exception, never a secret.

A check never raises: an unexpected error becomes a FAIL line with its reason. Checks change
nothing they can avoid changing: the database is read, never migrated, and folders are not
created.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from bot.cli.doctor.chat_model import check_chat_model
from bot.cli.doctor.check import Check, Where
from bot.cli.doctor.data import check_data
from bot.cli.doctor.embedder import check_embedder
from bot.cli.doctor.memory_jobs import check_jobs
from bot.cli.doctor.settings import check_settings
from bot.cli.doctor.sql import check_sql
from bot.cli.doctor.tokens import check_discord, check_telegram
from bot.cli.doctor.vector import check_vector
from bot.settings import Settings

PARTS = ("settings", "sql", "vector", "embedder", "chat model", "jobs", "telegram", "discord",
         "data")


async def diagnose(
    config_path: Path | None, environ: Mapping[str, str] = os.environ
) -> AsyncIterator[Check]:
    """Every part's check, in order, each as soon as it is known (a slow model shows why)."""
    first, settings = check_settings(config_path, environ)
    yield first
    if settings is None:  # every other check reads the settings
        for part in PARTS[1:]:
            yield Check(part, None, "not checked: the settings must load first")
        return
    secrets = _secrets(settings, environ)
    where = Where(config_path, environ)
    sql = await _guarded("sql", lambda: check_sql(settings, where))
    yield _redacted(sql, secrets)
    steps: list[tuple[str, bool, Callable[[], Awaitable[Check]]]] = [
        ("vector", True, lambda: check_vector(settings, where)),
        ("embedder", True, lambda: check_embedder(settings, where)),
        ("chat model", True, lambda: check_chat_model(settings, where)),
        ("jobs", False, lambda: check_jobs(settings, sql_ok=bool(sql.ok))),
        ("telegram", False, lambda: check_telegram(settings, environ)),
        ("discord", False, lambda: check_discord(environ)),
        ("data", True, lambda: check_data(settings, where)),
    ]
    for part, needed, check in steps:
        yield _redacted(await _guarded(part, check, needed_for_chat=needed), secrets)


async def _guarded(
    part: str, check: Callable[[], Awaitable[Check]], *, needed_for_chat: bool = True
) -> Check:
    """The check's answer; an error nobody foresaw is a FAIL line with its reason, not a trace."""
    try:
        return await check()
    except Exception as error:  # the boundary: doctor reports, it does not crash
        return Check(part, False, f"the check failed: {type(error).__name__}: {error}",
                     needed_for_chat=needed_for_chat)


def _secrets(settings: Settings, environ: Mapping[str, str]) -> list[str]:
    """Values that must never be printed, whatever message an error carries."""
    names = {"TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", settings.llm.api_key_env,
             settings.embeddings.api_key_env}
    values = (environ.get(name, "").strip() for name in names)
    return sorted((value for value in values if len(value) >= 4), key=len, reverse=True)


def _redacted(check: Check, secrets: Iterable[str]) -> Check:
    detail, fix = check.detail, check.fix
    for secret in secrets:
        detail, fix = detail.replace(secret, "<hidden>"), fix.replace(secret, "<hidden>")
    return replace(check, detail=detail, fix=fix)
