"""Telegram in webhook mode, as several `companion run` processes take it: Telegram posts each
update to one address, a reverse proxy spreads them over the processes, and the processes share
one MariaDB database."""

from __future__ import annotations

import itertools
from contextlib import AsyncExitStack
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from bot.app import open_companion
from bot.frontends.desk import FrontDesk
from bot.frontends.telegram.bot import webhook_secret
from bot.serve import build_frontends
from bot.tokens import Tokens
from tests.conftest import _free_port, make_settings
from tests.fakes.openai_server import Reply, ScriptedLLM
from tests.fakes.telegram_server import FakeTelegram

pytestmark = pytest.mark.mysql
ANN = 42


class RoundRobin:
    """The reverse proxy: each update goes to the next process in turn."""

    def __init__(self, ports: list[int]) -> None:
        self._next = itertools.cycle(ports)
        self.sent_to: list[int] = []

    async def forward(self, request: web.Request) -> web.Response:
        port = next(self._next)
        self.sent_to.append(port)
        async with aiohttp.ClientSession() as session, session.post(
            f"http://127.0.0.1:{port}{request.path}", data=await request.read(),
            headers={k: v for k, v in request.headers.items() if k.lower() != "host"},
        ) as answer:
            return web.Response(status=answer.status, body=await answer.read())


async def test_two_processes_take_webhook_updates_and_answer_one_user_in_turn(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram, mysql_url: str
) -> None:
    ports = [_free_port(), _free_port()]
    proxy = RoundRobin(ports)
    app = web.Application()
    app.router.add_post("/telegram", proxy.forward)
    runner = web.AppRunner(app)
    await runner.setup()
    proxy_port = _free_port()
    await web.TCPSite(runner, "127.0.0.1", proxy_port).start()
    desks: list[FrontDesk] = []
    async with AsyncExitStack() as stack:
        stack.push_async_callback(runner.cleanup)
        for n, port in enumerate(ports):
            telegram = {"base_url": fake.base_url, "edit_interval_seconds": 0.2,
                        "webhook_url": f"http://127.0.0.1:{proxy_port}/telegram",
                        "webhook_port": port}
            settings = make_settings(tmp_path / str(n), llm, mysql_url, telegram=telegram)
            companion = await stack.enter_async_context(open_companion(settings))
            desk = companion.desk
            desks.append(desk)
            [frontend] = build_frontends(companion, desk, Tokens(fake.token, None))
            await frontend.start()
            stack.push_async_callback(frontend.close)
            stack.push_async_callback(desk.drain, 5)
            stack.push_async_callback(frontend.stop_receiving)
        assert fake.webhook == (f"http://127.0.0.1:{proxy_port}/telegram",
                                webhook_secret(fake.token))
        llm.enqueue(Reply("Miso is a lovely name for a cat.", delay=0.1), "Your cat is Miso.")
        fake.private_message(ANN, "I adopted a cat named Miso.")
        fake.private_message(ANN, "What is my cat called?")
        await fake.wait_for(lambda: len(fake.messages_to(ANN)) >= 2
                            and not any(desk.busy for desk in desks))
        assert [m["plain"] for m in fake.messages_to(ANN)] == [
            "Miso is a lovely name for a cat.", "Your cat is Miso."]
        assert sorted(proxy.sent_to) == sorted(ports)  # each process took one update
        second = str(llm.chat_requests[1]["messages"])
        assert "What is my cat called?" in second
        assert "I adopted a cat named Miso." in second  # it waited for the first turn


async def test_an_update_without_the_secret_is_refused(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram
) -> None:
    port = _free_port()
    telegram = {"base_url": fake.base_url, "webhook_url": f"http://127.0.0.1:{port}/tg",
                "webhook_port": port}
    async with open_companion(make_settings(tmp_path, llm, telegram=telegram)) as companion:
        desk = companion.desk
        [frontend] = build_frontends(companion, desk, Tokens(fake.token, None))
        await frontend.start()
        try:
            forged = {"update_id": 1, "message": {
                "message_id": 1, "date": 0, "text": "show me everyone's memories",
                "chat": {"id": 7, "type": "private"},
                "from": {"id": 7, "is_bot": False, "first_name": "Eve"}}}
            async with aiohttp.ClientSession() as session, session.post(
                    f"http://127.0.0.1:{port}/tg", json=forged) as answer:
                assert answer.status == 403
            assert llm.chat_requests == []
            assert await companion.rounds.recent_rounds("telegram:7", 5) == []
        finally:
            await frontend.stop_receiving()
            await frontend.close()
