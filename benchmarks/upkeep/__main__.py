"""What memory upkeep costs: model calls, tokens, topics, facts and time per 100 rounds.

A scripted 500-round conversation (ten subjects and small talk, from
benchmarks/data/upkeep_subjects.jsonl) is fed in as if chatted, with the jobs running every 50
rounds, twice:

- `llm`: summaries, facts and merges by a model: a local OpenAI-compatible server that answers
  the Table II and III prompts and the facts prompt the way a capable model would (one grounded
  line per subject it finds, one fact per thing said), so calls and tokens are counted for real
  over HTTP;
- `extractive`: summaries and facts from the user's own words, no model.

In both, the model judges the new beliefs (any model but the bundled demo model does): it
answers the judge's prompt as a capable model would on this conversation, where nothing
changes (a statement said again in the same words is an entailment, anything else neutral).
Calls are counted by kind: summaries, facts, merges, belief checks.

    python -m benchmarks.upkeep

The last line is `upkeep_calls_per_100_rounds=<number>` for the `llm` summarizer, every kind of
call counted.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select

from benchmarks.support import (
    JUDGE_PROMPT,
    MERGE_MANY,
    WINDOW_PROMPT,
    ModelServer,
    ScriptedModel,
    merge_many_answer,
    nothing_changed,
    read_set,
    table_head,
    table_row,
    without_companion_environment,
)
from bot.app import open_companion
from bot.settings import load_settings
from memory.protocols import ChatMessage
from memory.sql.tables import facts, topics
from memory.types import Exchange

ROUNDS = 500
USER = "bench"
SUBJECTS = {r["subject"]: r["sentences"] for r in read_set("upkeep_subjects").records
            if "subject" in r}
SMALL_TALK = next(r["small_talk"] for r in read_set("upkeep_subjects").records
                  if "small_talk" in r)


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


def capable_answer(prompt: str) -> str:
    """Answers like a capable model: one grounded topic line per subject in the transcript, each
    thing said about a subject as a fact, and two beliefs as the same when their words are (the
    conversation changes nothing it said)."""
    if kind_of(prompt) == "belief checks":
        return nothing_changed(prompt)
    transcript = prompt.split("=====")[1]
    if "Summarize it in one sentence" in prompt:  # Table III: keep the newest record
        last = [line for line in transcript.splitlines() if line.strip()][-1]
        return re.sub(r"^\d+\.\s*", "1. ", last)
    if MERGE_MANY in prompt:
        return merge_many_answer(transcript)
    said = [s for sentences in SUBJECTS.values() for s in sentences if s in transcript]
    facts = "\n".join(f"- Host: {s}" for s in said) or "None"
    if "List the facts" in prompt:
        return facts
    lines: list[str] = []
    for label, sentences in SUBJECTS.items():
        said = [s for s in sentences if s in transcript]
        if said:
            lines.append(f"{len(lines) + 1}. The host and I talked about {label}, and the host "
                         f"said: {' '.join(said)}")
    summary = "\n".join(lines) or "Nothing in particular."
    return f"{summary}\nFacts:\n{facts}" if WINDOW_PROMPT in prompt else summary


KINDS = ("summaries and facts", "summaries", "facts", "merges", "belief checks")


def kind_of(prompt: str) -> str:
    """Which upkeep job a prompt is from (`jobs/summarize/prompts.py`, `jobs/beliefs`)."""
    if JUDGE_PROMPT in prompt:
        return "belief checks"
    if "Summarize it in one sentence" in prompt or MERGE_MANY in prompt:
        return "merges"
    if "List the facts" in prompt:
        return "facts"
    return "summaries and facts" if WINDOW_PROMPT in prompt else "summaries"


def tokens(text: str) -> int:
    return max(1, len(text) // 4)  # the usual estimate for English text


def capable_reply(messages: Sequence[ChatMessage]) -> list[str]:
    return [capable_answer(messages[-1]["content"])]


async def run(mode: str, server: ModelServer) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(None, data_dir=folder, memory={"summarizer": mode},
                                 llm={"provider": "openai", "base_url": server.base_url})
        async with open_companion(settings) as companion:
            jobs_time = jobs_cpu = 0.0
            chat = conversation()
            for start in range(0, ROUNDS, 50):  # as chatted: the jobs fire every 50 rounds
                await companion.ingest(USER, chat[start:start + 50], run_jobs=False)
                started, cpu_started = time.perf_counter(), time.process_time()
                await companion.worker.upkeep(USER)
                jobs_time += time.perf_counter() - started
                jobs_cpu += time.process_time() - cpu_started
            failed = len([j for j in await companion.worker.queue.jobs(user_id=USER)
                          if j.attempts > 1 or j.status != "done"])
            created = await _count(companion, topics, None)
            active = await _count(companion, topics, "active")
            fact_count = await _count(companion, facts, "active")
    calls = len(server.requests)
    used = sum(tokens(m["content"]) for r in server.requests for m in r["messages"])
    kinds = Counter(kind_of(r["messages"][-1]["content"]) for r in server.requests)
    return {"calls": calls, "tokens": used, "created": created, "active": active,
            "facts": fact_count, "seconds": jobs_time, "cpu": jobs_cpu,
            **{f"calls: {k}": kinds[k] for k in KINDS}, "failed": failed}


async def _count(companion: Any, table: Any, status: str | None) -> int:
    query = select(func.count()).select_from(table).where(table.c.user_id == USER)
    if status:
        query = query.where(table.c.status == status)
    async with companion.rounds._engine.connect() as conn:
        return int((await conn.execute(query)).scalar_one())


def main() -> None:
    without_companion_environment()
    results = {}
    for mode in ("llm", "extractive"):
        with ModelServer(ScriptedModel("scripted", capable_reply)) as server:
            results[mode] = asyncio.run(run(mode, server))
    per = 100 / ROUNDS
    print(f"{ROUNDS} rounds, jobs every 50 rounds, merge at 5 descriptions\n")
    print(table_head("summarizer", "model calls / 100 rounds", "prompt tokens / 100 rounds",
                     "topic descriptions / 100 rounds", "active topics at the end",
                     "facts / 100 rounds", "job time / 100 rounds", "job CPU / window",
                     "job CPU / message"))
    for mode, r in results.items():
        print(table_row(mode, f"{r['calls'] * per:.1f}", f"{r['tokens'] * per:,.0f}",
                        f"{r['created'] * per:.1f}", f"{r['active']:.0f}",
                        f"{r['facts'] * per:.1f}", f"{r['seconds'] * per:.2f} s",
                        f"{r['cpu'] * 1000 / (ROUNDS / 50):.0f} ms",
                        f"{r['cpu'] * 1000 / ROUNDS:.1f} ms"))
    print("\nModel calls by kind, per 100 rounds:\n")
    print(table_head("summarizer", *KINDS, "all", "jobs retried or not done"))
    for mode, r in results.items():
        print(table_row(mode, *(f"{r[f'calls: {k}'] * per:.1f}" for k in KINDS),
                        f"{r['calls'] * per:.1f}", f"{r['failed']:.0f}"))
    print("\nBoth runs judge beliefs with the model (any model but the bundled demo model "
          "judges), one call per window's new beliefs. Job CPU is this process's while the jobs "
          "run (embeddings, SQL, the vector index; the scripted model server's own thread is "
          "in it too).")
    print(f"upkeep_calls_per_100_rounds={results['llm']['calls'] * per:.1f}")


if __name__ == "__main__":
    main()
