"""What the studies share: their data sets, their scripted chat models, and their tables.

- `read_set(name)` reads `benchmarks/data/<name>.jsonl`: a header line saying what the set
  holds, who wrote it, how and where it is weak, then one record per line.
- `ScriptedModel` is the chat model of every study that needs one: a study gives it the reply to
  a prompt (`reply(messages)`, in pieces), or none when the study must never be answered.
- `ModelServer` serves a `ScriptedModel` over the OpenAI chat API on 127.0.0.1, for the studies
  that measure the product's own HTTP client (calls and tokens counted as sent).
- `capable_answer` answers the memory jobs' prompts the way a capable model would;
  `judge_answer` answers a belief judge's prompt with a study's own labels.
- `table_head` and `table_row` print Markdown tables.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from memory.protocols import ChatMessage

DATA = Path(__file__).resolve().parent / "data"
HEADER_FIELDS = ("what", "written_by", "how", "weak_spots", "used_by")


# --------------------------------------------------------------------------- data sets


@dataclass(frozen=True)
class DataSet:
    name: str
    header: dict[str, str]
    records: list[dict[str, Any]]


def read_set(name: str) -> DataSet:
    """A data set of `benchmarks/data`; raises ValueError when its header is missing or lacks
    one of `HEADER_FIELDS`, or when a record is not a JSON object."""
    path = DATA / f"{name}.jsonl"
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    first = json.loads(lines[0]) if lines else None
    header = first.get("header") if isinstance(first, dict) else None
    if not isinstance(header, dict) or set(header) != set(HEADER_FIELDS):
        raise ValueError(f"{path}: the first line must be {{\"header\": {{...}}}} with "
                         f"{', '.join(HEADER_FIELDS)}")
    records = [json.loads(line) for line in lines[1:]]
    for number, record in enumerate(records, start=2):
        if not isinstance(record, dict) or "header" in record:
            raise ValueError(f"{path}, line {number}: a record must be a JSON object")
    return DataSet(name, header, records)


# --------------------------------------------------------------------------- chat models

Reply = Callable[[Sequence[ChatMessage]], Iterable[str]]


class ScriptedModel:
    """A chat model whose replies a study writes.

    `reply(messages)` gives the pieces of the reply to a prompt. Without it the model must never
    be asked: a study that stores and recalls but never answers fails loudly if it is.
    """

    def __init__(self, name: str, reply: Reply | None = None) -> None:
        self.name = name
        self._reply = reply
        self.calls = 0

    async def stream(self, messages: Sequence[ChatMessage]) -> AsyncGenerator[str, None]:
        if self._reply is None:
            raise AssertionError(f"the {self.name} model must not be called")
        self.calls += 1
        for piece in self._reply(messages):
            yield piece

    async def aclose(self) -> None:
        return None


def silent() -> ScriptedModel:
    """The model of a study that never asks for a reply."""
    return ScriptedModel("silent")


def instant(text: str = "That sounds lovely, tell me more!") -> ScriptedModel:
    """A model that answers at once, so a study times memory work, not generation."""
    return ScriptedModel("instant", lambda _: [text])


_JUDGED = re.compile(r"^(\d+)\. \(\d+ \w+ \d{4}\) (.*)$")
_JUDGED_NEW = re.compile(r"^New statement by [^(]+\([^)]*\): (.*)$")


def judged_pairs(prompt: str) -> list[tuple[str, str]]:
    """The pairs a belief judge's prompt asks about, in order: each numbered earlier statement
    and the new statement above it (`jobs/beliefs/model_judge.py`)."""
    pairs, new = [], ""
    for line in prompt.splitlines():
        if (start := _JUDGED_NEW.match(line)) is not None:
            new = start[1]
        elif new and (premise := _JUDGED.match(line)) is not None:
            pairs.append((premise[2], new))
    return pairs


def judge_answer(prompt: str, label: Callable[[str, str], str]) -> str:
    """The answer to a belief judge's prompt: `label(earlier, new)` for each pair, such as
    "contradiction 0.9"."""
    return "\n".join(f"{n}. {label(earlier, new)}"
                     for n, (earlier, new) in enumerate(judged_pairs(prompt), start=1))


def nothing_changed(prompt: str) -> str:
    """A belief judge's answer for a conversation where nothing changes: a statement said again
    in the same words is an entailment, anything else neutral."""
    return judge_answer(prompt, lambda earlier, new: "entailment 0.9"
                        if earlier.casefold() == new.casefold() else "neutral 0.9")


JUDGE_PROMPT = "You check whether statements can all be true now"  # jobs/beliefs/model_judge.py


def capable_answer(prompt: str) -> str:
    """Answers the summary (with or without the facts), facts, merge and belief prompts as a
    capable model would: it
    restates what the user said about themselves in the third person, and what the companion
    recommended; it finds no two statements contradicting each other (the studies that use it
    say nothing changes), only the same statement said again."""
    if JUDGE_PROMPT in prompt:
        return nothing_changed(prompt)
    if "=====" not in prompt:  # a prompt it was not written for: no answer
        return "None"
    transcript = prompt.split("=====")[1]
    if "Summarize it in one sentence" in prompt:  # Table III: the newest record carries on
        last = [line for line in transcript.splitlines() if line.strip()][-1]
        return re.sub(r"^\d+\.\s*", "1. ", last)
    if MERGE_MANY in prompt:
        return merge_many_answer(transcript)
    said = [line.split(":", 1)[1].strip() for line in transcript.splitlines()
            if line.startswith("Host:")]
    statements = [s for line in said for s in re.split(r"(?<=[.!])\s+", line)
                  if len(s.split()) >= 6 and not s.endswith("?")]
    facts = _facts_answer(statements, transcript)
    if "List the facts" in prompt:
        return facts
    topics = [statements[i:i + 3] for i in range(0, len(statements), 8)]
    summary = "\n".join(
        f"{n}. The host and I talked about {max(group[0].split(), key=len).strip('.,!')}, "
        f"and the host said: {' '.join(_third_person(s) for s in group)}"
        for n, group in enumerate(topics, start=1)) or "Nothing in particular."
    return f"{summary}\nFacts:\n{facts}" if WINDOW_PROMPT in prompt else summary


WINDOW_PROMPT = 'Then write a line "Facts:"'  # jobs/summarize/prompts.py: topics and facts
MERGE_MANY = "Summarize each topic in one sentence"  # ... and Table III for several labels


def merge_many_answer(records: str) -> str:
    """Table III for several labels: each topic's newest record carries on, numbered as the
    topics are."""
    answers = []
    for n, block in enumerate(re.split(r"^Topic \d+:\s*$", records, flags=re.M)[1:], start=1):
        last = [line for line in block.splitlines() if line.strip()][-1]
        answers.append(re.sub(r"^\d+\.\s*", f"{n}. ", last))
    return "\n".join(answers)


def _facts_answer(statements: list[str], transcript: str) -> str:
    facts = [f"Host: {_third_person(s)}" for s in statements]
    replies = [line.split(":", 1)[1].strip() for line in transcript.splitlines()
               if line and not line.startswith("Host:") and ":" in line]
    facts += [f"You: {s}" for line in replies for s in re.split(r"(?<=[.!])\s+", line)
              if re.search(r"\b(recommend|suggest|should|try)\b", s) and not s.endswith("?")]
    return "\n".join(f"- {fact}" for fact in facts) or "None"


def _third_person(sentence: str) -> str:
    swaps = {"i": "the host", "i'm": "the host is", "i've": "the host has", "my": "the host's",
             "me": "the host", "myself": "themselves"}
    return re.sub(r"\b(I'm|I've|I|my|me|myself)\b",
                  lambda m: swaps[m.group(0).lower()], sentence, flags=re.IGNORECASE)


def capable() -> ScriptedModel:
    """A model that answers the memory jobs' prompts as a capable model would."""
    return ScriptedModel("scripted", lambda messages: [capable_answer(messages[-1]["content"])])


# --------------------------------------------------------------------------- an HTTP model


class ModelServer:
    """Serves a `ScriptedModel` on 127.0.0.1 (a free port) as an OpenAI-compatible chat API,
    from its own thread, and keeps every request body it was sent (`requests`).

    A streamed reply comes word by word, as a real server sends it.
    """

    def __init__(self, model: ScriptedModel) -> None:
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.base_url = ""
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="model-server", daemon=True)
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> ModelServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the benchmark's model server did not start")
        return self

    def __exit__(self, *_: object) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.base_url = f"http://127.0.0.1:{self._runner.addresses[0][1]}/v1"
        self._ready.set()
        self._loop.run_forever()

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        text = "".join([piece async for piece in self.model.stream(body["messages"])])
        if not body.get("stream"):
            return web.json_response(completion(text))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        words = text.split(" ")
        for piece in (w if i == 0 else " " + w for i, w in enumerate(words)):
            await response.write(sse(chunk(piece)))
        await response.write(sse(chunk(None, finish="stop")))
        await response.write(b"data: [DONE]\n\n")
        return response


def chunk(piece: str | None, finish: str | None = None) -> dict[str, Any]:
    """One piece of a streamed reply (`None` with `finish`: the end)."""
    delta = {"role": "assistant", "content": piece} if piece is not None else {}
    return {"id": "benchmark", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": "benchmark",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def completion(text: str) -> dict[str, Any]:
    """A whole reply, for a request that does not stream."""
    return {"id": "benchmark", "object": "chat.completion", "created": int(time.time()),
            "model": "benchmark",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def sse(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()


def without_companion_environment() -> None:
    """Forget every COMPANION_* variable: a study never touches the user's own data or model."""
    for name in [n for n in os.environ if n.startswith("COMPANION_")]:
        del os.environ[name]


# --------------------------------------------------------------------------- tables


def table_head(*columns: str, align: str = "") -> str:
    """The first two lines of a Markdown table. `align` has "l" or "r" per column; by default
    the first column is left-aligned and the others right-aligned (numbers)."""
    align = align or "l" + "r" * (len(columns) - 1)
    rule = "|".join("---:" if a == "r" else "---" for a in align)
    return f"| {' | '.join(columns)} |\n|{rule}|"


def table_row(*cells: object) -> str:
    return "|" + "|".join(f" {cell} " if str(cell) else " " for cell in cells) + "|"
