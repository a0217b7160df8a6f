"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat and embeddings API.

Replies are scripted; every request body is recorded so tests can assert the exact prompt.
It runs its own event loop in a thread, so any test (async, sync, a subprocess) can use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from aiohttp import web

DEFAULT_MODELS = ("fake-chat", "fake-embed-text")


@dataclass(frozen=True)
class Reply:
    """A scripted reply, streamed in `chunks` pieces, each after `delay` seconds."""

    text: str
    delay: float = 0.0
    # The stream stops after its first piece until the test sets this: a test that must see a
    # reply half written sees it however slow the machine, not only when its polling is lucky.
    hold: threading.Event | None = None
    fail_after: int | None = None  # drop the connection after this many pieces
    finish: str = "stop"  # "length": the reply reached max_tokens
    # Close the connection once the reply is sent, without a word: as a server closes a
    # kept-alive connection it found idle, just as the client takes it again.
    close_after: bool = False


@dataclass(frozen=True)
class Error:
    """An HTTP error answer, such as 503 or 429."""

    status: int
    message: str = "scripted failure"


@dataclass
class ScriptedLLM:
    """The server's state. Scripted items are used in order; when none is left, `default`."""

    default: str = "Happy to chat with you!"
    # When set, unscripted replies are computed from the request body instead of `default`.
    responder: Callable[[dict[str, Any]], str] | None = None
    delay: float = 0.0  # between the pieces of unscripted replies
    script: deque[Reply | Error] = field(default_factory=deque)
    # A request whose messages contain a key is answered with its value, and the script is
    # left for the other requests (a memory job's second prompt, say).
    answers: dict[str, str] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)  # of each chat request
    # What GET /v1/models lists, as Ollama or vLLM would; an `Error` refuses the listing.
    models: list[str] | Error = field(default_factory=lambda: list(DEFAULT_MODELS))
    in_flight: int = 0
    max_in_flight: int = 0
    base_url: str = ""

    def enqueue(self, *items: Reply | Error | str) -> None:
        self.script.extend(Reply(i) if isinstance(i, str) else i for i in items)

    def reset(self) -> None:
        self.default = ScriptedLLM.default
        self.responder = None
        self.delay = 0.0
        self.script.clear()
        self.answers.clear()
        self.requests.clear()
        self.headers.clear()
        self.models = list(DEFAULT_MODELS)
        self.in_flight = self.max_in_flight = 0

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if "messages" in r]

    @property
    def last_system_prompt(self) -> str:
        return self.chat_requests[-1]["messages"][0]["content"]

    def next_item(self, body: dict[str, Any]) -> Reply | Error:
        said = json.dumps(body.get("messages", []))
        for key, text in self.answers.items():
            if key in said:
                return Reply(text)
        if self.script:
            return self.script.popleft()
        return Reply(self.responder(body) if self.responder else self.default, self.delay)


def fake_vector(text: str, dimensions: int = 64) -> list[float]:
    """A deterministic, non-normalized vector for a text (the client normalizes)."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return (np.random.default_rng(seed).normal(size=dimensions) * 3).tolist()


def _routes(state: ScriptedLLM) -> web.Application:
    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        state.requests.append(body)
        state.headers.append(dict(request.headers))
        item = state.next_item(body)
        if isinstance(item, Error):
            return web.json_response({"error": {"message": item.message}}, status=item.status)
        state.in_flight += 1
        state.max_in_flight = max(state.max_in_flight, state.in_flight)
        try:
            if body.get("stream"):
                return await _stream(request, item)
            await asyncio.sleep(item.delay)
            return web.json_response(_completion(item.text))
        finally:
            state.in_flight -= 1

    async def embeddings(request: web.Request) -> web.Response:
        body = await request.json()
        state.requests.append(body)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(t)}
            for i, t in enumerate(texts)
        ]
        return web.json_response(
            {"object": "list", "data": data, "model": body.get("model", "fake"),
             "usage": {"prompt_tokens": 1, "total_tokens": 1}}
        )

    async def models(request: web.Request) -> web.Response:
        if isinstance(state.models, Error):
            return web.json_response({"error": {"message": state.models.message}},
                                     status=state.models.status)
        listed = [{"id": name, "object": "model", "created": 0, "owned_by": "fake"}
                  for name in state.models]
        return web.json_response({"object": "list", "data": listed})

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_post("/v1/embeddings", embeddings)
    return app


def _pieces(text: str) -> list[str]:
    words = text.split(" ")
    return [w if i == 0 else " " + w for i, w in enumerate(words)]


async def _stream(request: web.Request, item: Reply) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    # The client may go away (a killed worker, a closed stream): nothing left to answer.
    with contextlib.suppress(ConnectionResetError):
        await _write_pieces(request, response, item)
    return response


async def _write_pieces(request: web.Request, response: web.StreamResponse, item: Reply) -> None:
    for count, piece in enumerate(_pieces(item.text)):
        if item.fail_after is not None and count >= item.fail_after:
            request.transport.close()  # type: ignore[union-attr]
            return
        if count == 1 and item.hold is not None:
            await asyncio.to_thread(item.hold.wait, 60)
        await asyncio.sleep(item.delay)
        await response.write(f"data: {json.dumps(_chunk(piece))}\n\n".encode())
    await response.write(f"data: {json.dumps(_chunk(None, finish=item.finish))}\n\n".encode())
    await response.write(b"data: [DONE]\n\n")
    if item.close_after:
        await response.write_eof()
        request.transport.close()  # type: ignore[union-attr]


def _chunk(piece: str | None, finish: str | None = None) -> dict[str, Any]:
    delta = {"role": "assistant", "content": piece} if piece is not None else {}
    return {
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
        "model": "fake", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
        "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class ServerThread:
    """Runs the scripted server on 127.0.0.1 (a free port) in a background thread."""

    def __init__(self) -> None:
        self.state = ScriptedLLM()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="fake-openai", daemon=True)
        self._runner: web.AppRunner | None = None

    def start(self) -> ScriptedLLM:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fake OpenAI server did not start")
        return self.state

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._runner = web.AppRunner(_routes(self.state))
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        port = self._runner.addresses[0][1]
        self.state.base_url = f"http://127.0.0.1:{port}/v1"
        self._ready.set()
        self._loop.run_forever()

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
