"""`companion run`: the chat platforms and the memory sweep, in one process and one loop."""

from __future__ import annotations

import asyncio
import logging
import signal
from contextlib import suppress
from typing import Protocol

from bot.app import Companion, open_companion
from bot.frontends.desk import FrontDesk
from bot.heap import few_malloc_arenas, settle, tend
from bot.settings import Settings
from bot.tokens import Tokens

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_SECONDS = 20.0


class Frontend(Protocol):
    platform: str  # the prefix of its users' ids: "telegram", "discord"

    async def start(self) -> None: ...

    async def send_private(self, user_id: str, text: str) -> None: ...

    async def wait_failed(self) -> None: ...

    async def stop_receiving(self) -> None: ...

    async def close(self) -> None: ...


def build_frontends(companion: Companion, desk: FrontDesk, tokens: Tokens) -> list[Frontend]:
    frontends: list[Frontend] = []
    if tokens.telegram:
        from bot.frontends.telegram.bot import TelegramFrontend

        frontends.append(TelegramFrontend(desk, companion.settings.telegram, tokens.telegram))
    if tokens.discord:
        from bot.frontends.discord import DiscordFrontend

        frontends.append(DiscordFrontend(desk, companion.settings.discord, tokens.discord))
    return frontends


async def serve(settings: Settings, tokens: Tokens) -> None:
    """Serve until SIGINT or SIGTERM: then stop taking messages, let replies in progress
    finish (cancelled after a grace period, their rounds kept), and close the stores."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    few_malloc_arenas()
    async with open_companion(settings, sweep=True) as companion:
        settle()
        tending = asyncio.create_task(tend())
        desk = companion.desk
        frontends = build_frontends(companion, desk, tokens)
        started: list[Frontend] = []
        try:
            for frontend in frontends:
                await frontend.start()
                started.append(frontend)
            log.info("Serving %d frontend(s); Ctrl+C or SIGTERM stops", len(started))
            checking = asyncio.create_task(_check_in(companion, started))
            try:
                await _until_stopped(stop, started)
            finally:
                checking.cancel()
                with suppress(asyncio.CancelledError):
                    await checking
        finally:
            for frontend in started:
                await frontend.stop_receiving()
            await desk.drain(SHUTDOWN_GRACE_SECONDS)
            for frontend in started:
                await frontend.close()
            tending.cancel()
            with suppress(asyncio.CancelledError):
                await tending
    log.info("Stopped cleanly")


async def _check_in(companion: Companion, frontends: list[Frontend]) -> None:
    """Send the check-ins due (`bot.core.checkins`) every `checkins.every_minutes`; a failed
    round is logged and tried again at the next."""
    senders = {frontend.platform: frontend.send_private for frontend in frontends}
    while True:
        try:
            await companion.checkins.send_due(senders)
        except Exception:
            log.exception("Check-ins could not be sent this time")
        await asyncio.sleep(companion.settings.checkins.every_minutes * 60)


async def _until_stopped(stop: asyncio.Event, frontends: list[Frontend]) -> None:
    waits: set[asyncio.Task[object]] = {asyncio.create_task(stop.wait())}
    waits |= {asyncio.create_task(frontend.wait_failed()) for frontend in frontends}
    _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
    if not stop.is_set():
        log.error("A frontend stopped by itself; shutting down")
