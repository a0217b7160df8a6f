"""One bot process of the load benchmark: a companion (settings from the environment, as
`companion run` takes them) with the memory sweep, and the front desk the Telegram and Discord
frontends hand their messages to, reached over a small HTTP endpoint instead of a platform.

    COMPANION_SQL__URL=... python -m benchmarks.load.bot --port 8200

POST /message {"user": "...", "text": "..."} answers one message and returns what the person
would see and how long the whole reply took (`ms`); GET /ready says the companion is open.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import time
import uuid
from collections.abc import Sequence
from typing import Any

from aiohttp import web

from bot.app import open_companion
from bot.commands.replies import Attachment
from bot.core.inbound import Incoming
from bot.heap import few_malloc_arenas, settle, tend
from bot.settings import load_settings


class RecordingSurface:
    """A private chat that keeps what the person would read."""

    limit = 4096
    edit_interval = 1.0

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._chat = uuid.uuid4().hex  # a platform's message keys are its own, never shared

    async def send(self, text: str) -> int:
        self.messages.append(text)
        return len(self.messages) - 1

    async def edit(self, handle: int, text: str) -> int:
        self.messages[handle] = text
        return handle

    async def send_file(self, text: str, attachment: Attachment) -> None:
        self.messages.append(text)

    async def confirm(self, text: str, command: str) -> None:
        self.messages.append(text)

    async def show_problem(self, text: str) -> None:
        self.messages.append(text)

    def show_recall(self, recall: Any, cited: Sequence[int] = ()) -> None:
        return None  # a chat platform shows no memories beside a reply

    def show_forgotten(self) -> None:
        return None

    async def typing(self) -> None:
        return None

    def message_key(self, handle: Any) -> str:
        return f"load:{self._chat}:{handle}"


async def serve(port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    few_malloc_arenas()  # as `companion run` does
    async with open_companion(load_settings(), sweep=True) as companion:
        settle()  # as `companion run` does, and tends the heap as it does
        tending = asyncio.create_task(tend())
        desk = companion.desk

        async def message(request: web.Request) -> web.Response:
            body = await request.json()
            surface = RecordingSurface()
            started = time.perf_counter()
            await desk.handle(Incoming(body["user"], body["text"]), surface)
            return web.json_response({"messages": surface.messages,
                                      "ms": (time.perf_counter() - started) * 1000})

        async def ready(_: web.Request) -> web.Response:
            return web.json_response({"ready": True})

        app = web.Application()
        app.router.add_post("/message", message)
        app.router.add_get("/ready", ready)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        try:
            await stop.wait()
        finally:
            await desk.drain(20)
            await runner.cleanup()
            tending.cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    asyncio.run(serve(parser.parse_args().port))


if __name__ == "__main__":
    main()
