"""What memory upkeep costs: model calls, tokens, topics, facts and time per 100 rounds.

A scripted 500-round conversation (ten subjects and small talk) is fed in as if chatted, with
the jobs running every 50 rounds, twice:

- `llm`: summaries, facts and merges by a model: a local OpenAI-compatible server that answers
  the Table II and III prompts and the facts prompt the way a capable model would (one grounded
  line per subject it finds, one fact per thing said), so calls and tokens are counted for real
  over HTTP;
- `extractive`: no model at all (the offline default).

    python -m benchmarks.upkeep

The last line is `upkeep_calls_per_100_rounds=<number>` for the `llm` summarizer.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import time
from typing import Any

from sqlalchemy import func, select

from bot.app import open_companion
from bot.settings import load_settings
from memory.sql.tables import facts, topics
from memory.types import Exchange
from tests.fakes.openai_server import ScriptedLLM, ServerThread

ROUNDS = 500
USER = "bench"
SUBJECTS = {
    "hobbies": ["I play table tennis every Tuesday at the club.",
                "I started swimming lessons on Saturday mornings."],
    "work": ["I work night shifts as a nurse at the city hospital.",
             "My ward was short of staff again last night."],
    "garden": ["I grow tomatoes and basil in my small garden.",
               "My tomatoes finally turned red this week."],
    "family": ["My sister just had a baby girl called Ada.",
               "My parents are visiting us next month."],
    "pets": ["My cat Miso knocked a plant off the shelf.", "I took Miso to the vet today."],
    "travel": ["I am planning a trip to Japan in the spring.", "I booked my flights to Osaka."],
    "music": ["I practise the violin every evening.", "My orchestra plays Dvorak in May."],
    "books": ["I am reading a novel by Ursula Le Guin.", "My book club meets on Thursdays."],
    "health": ["My knee hurts after running.", "I have a physiotherapy appointment tomorrow."],
    "food": ["I cooked ramen from scratch tonight.", "My favourite dish is my mother's curry."],
}
SMALL_TALK = ["haha", "ok", "thanks!", "what do you think?", "good night"]


def conversation() -> list[Exchange]:
    names = list(SUBJECTS)
    rounds = []
    for i in range(ROUNDS):
        if i % 4 == 3:
            text = SMALL_TALK[i % len(SMALL_TALK)]
        else:
            sentences = SUBJECTS[names[(i // 12) % len(names)]]
            text = sentences[i % len(sentences)]
        rounds.append(Exchange(text, "That's lovely, tell me more about it!"))
    return rounds


def capable_model(body: dict[str, Any]) -> str:
    """Answers like a capable model: one grounded topic line per subject in the transcript, and
    each thing said about a subject as a fact."""
    prompt = body["messages"][-1]["content"]
    transcript = prompt.split("=====")[1]
    if "Summarize it in one sentence" in prompt:  # Table III: keep the newest record
        last = [line for line in transcript.splitlines() if line.strip()][-1]
        return re.sub(r"^\d+\.\s*", "1. ", last)
    if "List the facts" in prompt:
        said = [s for sentences in SUBJECTS.values() for s in sentences if s in transcript]
        return "\n".join(f"- Host: {s}" for s in said) or "None"
    lines = []
    for label, sentences in SUBJECTS.items():
        said = [s for s in sentences if s in transcript]
        if said:
            lines.append(f"{len(lines) + 1}. The host and I talked about {label}, and the host "
                         f"said: {' '.join(said)}")
    return "\n".join(lines) or "Nothing in particular."


def tokens(text: str) -> int:
    return max(1, len(text) // 4)  # the usual estimate for English text


async def run(mode: str, server: ScriptedLLM) -> dict[str, float]:
    server.reset()
    server.responder = capable_model
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(None, data_dir=folder, memory={"summarizer": mode},
                                 llm={"provider": "openai", "base_url": server.base_url})
        async with open_companion(settings) as companion:
            jobs_time = 0.0
            chat = conversation()
            for start in range(0, ROUNDS, 50):  # as chatted: the jobs fire every 50 rounds
                await companion.rounds.import_rounds(USER, "companion", chat[start:start + 50])
                started = time.perf_counter()
                await companion.worker.upkeep(USER)
                jobs_time += time.perf_counter() - started
            created = await _count(companion, topics, None)
            active = await _count(companion, topics, "active")
            fact_count = await _count(companion, facts, "active")
    calls = len(server.chat_requests)
    used = sum(tokens(m["content"]) for r in server.chat_requests for m in r["messages"])
    return {"calls": calls, "tokens": used, "created": created, "active": active,
            "facts": fact_count, "seconds": jobs_time}


async def _count(companion: Any, table: Any, status: str | None) -> int:
    query = select(func.count()).select_from(table).where(table.c.user_id == USER)
    if status:
        query = query.where(table.c.status == status)
    async with companion.rounds._engine.connect() as conn:
        return int((await conn.execute(query)).scalar_one())


def main() -> None:
    for name in [n for n in os.environ if n.startswith("COMPANION_")]:
        del os.environ[name]  # never the user's own data or model
    thread = ServerThread()
    server = thread.start()
    try:
        results = {mode: asyncio.run(run(mode, server)) for mode in ("llm", "extractive")}
    finally:
        thread.stop()
    per = 100 / ROUNDS
    print(f"{ROUNDS} rounds, jobs every 50 rounds, merge at 5 descriptions\n")
    print("| summarizer | model calls / 100 rounds | prompt tokens / 100 rounds | "
          "topic descriptions / 100 rounds | active topics at the end | facts / 100 rounds | "
          "job time / 100 rounds |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode, r in results.items():
        print(f"| {mode} | {r['calls'] * per:.1f} | {r['tokens'] * per:,.0f} | "
              f"{r['created'] * per:.1f} | {r['active']:.0f} | {r['facts'] * per:.1f} | "
              f"{r['seconds'] * per:.2f} s |")
    print(f"upkeep_calls_per_100_rounds={results['llm']['calls'] * per:.1f}")


if __name__ == "__main__":
    main()
