"""Fixtures of the frontend tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.telegram_server import FakeTelegram, bypass_proxies_for_loopback


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeTelegram]:
    """A fake Telegram Bot API on 127.0.0.1, as python-telegram-bot sees Telegram."""
    bypass_proxies_for_loopback(monkeypatch)
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    async with FakeTelegram() as server:
        yield server
