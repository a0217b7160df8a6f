"""The load benchmark's model: an OpenAI-compatible server in its own process that streams each
chat reply over `--stream-ms` and watches every prompt it is sent.

    python -m benchmarks.load.model --port 8123 --stream-ms 200

A prompt with a system message is a reply to a person; any other is a memory job's, answered
at once (its time is not what is measured) as a capable model would: summaries, facts and
merges as `benchmarks.support.capable_answer` does, a belief check with "neutral" for every earlier
statement. For each reply it keeps when the request arrived and when its stream ended, by the
message id the prompt's current message carries (`msg-<user>-<n>`). It counts a prompt that
holds the marker words of two users (`leaked`) and a chat stream that starts while another
stream of the same user is still running (`overlapped`: two turns of one user at once).
GET /records gives it all as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from benchmarks.support import capable_answer, chunk, completion, sse

MARKER = re.compile(r"\bkiwi(\d{4})\b")
MESSAGE_ID = re.compile(r"\bmsg-(\d+)-(\d+)\b")
PIECES = 8
REPLY = "That sounds lovely, tell me more about it when you can."


def marker(user: int) -> str:
    """The word only user number `user` ever says."""
    return f"kiwi{user:04d}"


def message_id(user: int, number: int) -> str:
    return f"msg-{user}-{number}"


@dataclass
class Watch:
    stream_seconds: float
    streams: dict[str, list[float]] = field(default_factory=dict)  # message id: start, end
    streaming: Counter[str] = field(default_factory=Counter)  # user: streams in progress
    leaked: list[str] = field(default_factory=list)
    overlapped: list[str] = field(default_factory=list)
    job_prompts: int = 0

    def check_leak(self, body: dict[str, Any]) -> None:
        said = json.dumps(body.get("messages", []), ensure_ascii=False)
        users = set(MARKER.findall(said))
        if len(users) > 1:
            self.leaked.append(f"users {sorted(users)} in one prompt: {said[:300]}")


def current_message(body: dict[str, Any]) -> tuple[str, str] | None:
    """(user, message id) of the message a chat prompt answers: the last id its last message
    holds."""
    found = MESSAGE_ID.findall(body["messages"][-1]["content"])
    if not found:
        return None
    user, number = found[-1]
    return user, f"msg-{user}-{number}"


def routes(watch: Watch) -> web.Application:
    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        watch.check_leak(body)
        if body["messages"][0]["role"] != "system":
            watch.job_prompts += 1
            answer = job_answer(body)
            if body.get("stream"):
                return await _stream(request, answer, None, watch, seconds=0.0)
            return web.json_response(completion(answer))
        return await _stream(request, REPLY, current_message(body), watch)

    async def records(_: web.Request) -> web.Response:
        return web.json_response({
            "streams": watch.streams, "leaked": watch.leaked, "overlapped": watch.overlapped,
            "job_prompts": watch.job_prompts})

    async def forget(_: web.Request) -> web.Response:
        watch.streams.clear()
        watch.leaked.clear()
        watch.overlapped.clear()
        watch.job_prompts = 0
        return web.json_response({})

    app = web.Application(client_max_size=16 * 1024 * 1024)
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_get("/records", records)
    app.router.add_post("/forget", forget)
    return app


def job_answer(body: dict[str, Any]) -> str:
    return capable_answer(body["messages"][-1]["content"])


async def _stream(request: web.Request, text: str, current: tuple[str, str] | None,
                  watch: Watch, seconds: float | None = None) -> web.StreamResponse:
    """`seconds`: how long the whole stream takes (`watch.stream_seconds` unless given)."""
    pause = watch.stream_seconds if seconds is None else seconds
    started = time.time()
    if current is not None:
        user, _ = current
        if watch.streaming[user]:
            watch.overlapped.append(current[1])
        watch.streaming[user] += 1
    try:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        words = text.split(" ")
        step = -(-len(words) // PIECES)  # at most PIECES pieces, each after an equal pause
        pieces = [" ".join(words[i:i + step]) + " " for i in range(0, len(words), step)]
        for piece in pieces:
            await asyncio.sleep(pause / len(pieces))
            await response.write(sse(chunk(piece)))
        await response.write(sse(chunk(None, "stop")))
        await response.write(b"data: [DONE]\n\n")
        return response
    finally:
        if current is not None:
            watch.streaming[current[0]] -= 1
            watch.streams[current[1]] = [started, time.time()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stream-ms", type=float, default=200.0)
    args = parser.parse_args()
    watch = Watch(stream_seconds=args.stream_ms / 1000)
    web.run_app(routes(watch), host="127.0.0.1", port=args.port, print=None,
                access_log=None)


if __name__ == "__main__":
    main()
