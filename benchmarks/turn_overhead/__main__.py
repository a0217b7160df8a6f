"""Memory overhead of one turn: everything but the LLM's generation.

Per turn: store the user's round, embed the message, read Recency (last 20 rounds), fill
Relevance (taught facts first, topics and facts by meaning, facts by words, within the token
budget), read Latest_topics (5 newest), look up feedback (clarifications), pick the shared
pool's examples (the persona's domain, reranked by the trained retriever), build the prompt,
store the reply. The user has 100,000 stored rounds, 100 corrections, 100,000 facts, 1,000
taught facts and 0, 1,000 or 10,000 topics, and the shared pool 10,000 entries, on SQLite and
embedded chromadb with the packaged MiniLM embedder, default settings.
The reply comes from an in-process model that answers instantly, so only our own work is timed.

    python -m benchmarks.turn_overhead              # 0, 1,000 and 10,000 topics
    python -m benchmarks.turn_overhead --topics 10000 --feedback 0 --facts 0
    python -m benchmarks.turn_overhead --embeddings e5   # multilingual-e5 instead of MiniLM

The last line is `p95_ms=<p95 of the largest size measured>`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from datetime import UTC

import numpy as np
from sqlalchemy import insert

from benchmarks.support import (
    instant,
    read_set,
    table_head,
    table_row,
    without_companion_environment,
)
from benchmarks.turn_overhead.turns import (
    MESSAGES,
    THINGS,
    USER,
    fact_text,
    one_turn,
    topic_text,
)
from bot.app import Companion, open_companion
from bot.settings import load_settings
from memory.feedback.store import Correction
from memory.pool.store import entry_id
from memory.sql.engine import open_engine, utcnow
from memory.sql.tables import rounds
from memory.types import Fact, Origin, PoolEntry, PoolStatus, Speaker

ROUNDS = 100_000
MEASURED_TURNS = 200
WARMUP_TURNS = 20


async def seed_rounds(sql_url: str) -> None:
    engine = open_engine(sql_url)
    now = utcnow()
    rows = [
        {"user_id": USER, "conversation_id": USER, "persona": "companion",
         "user_text": f"message {i} " + MESSAGES[i % len(MESSAGES)],
         "reply_text": "reply", "status": "answered", "created_at": now, "replied_at": now}
        for i in range(ROUNDS)
    ]
    async with engine.begin() as conn:
        for start in range(0, ROUNDS, 10_000):
            await conn.execute(insert(rounds), rows[start:start + 10_000])
    await engine.dispose()


async def grow_topics(companion: Companion, target: int, rng: random.Random) -> None:
    have = await companion.topics.count(USER)
    while have < target:
        batch = [topic_text(rng, have + i) for i in range(min(500, target - have))]
        await companion.topics.add_topics(USER, batch)
        have += len(batch)


async def seed_facts(
    companion: Companion, count: int, rng: random.Random, origin: Origin = Origin.SAID
) -> None:
    """Facts as the memory jobs (or teaching) store them: SQL rows, lexical index, vectors."""
    said = utcnow().replace(tzinfo=UTC)
    first = 0 if origin is Origin.SAID else 10**9  # ids apart from the other kind's
    for start in range(first, first + count, 1000):
        batch = [Fact(f"{i:032x}", USER, fact_text(rng, i), Speaker.USER, said, (i + 1,), origin)
                 for i in range(start, min(start + 1000, first + count))]
        await companion.facts.add_facts(batch)


async def seed_feedback(companion: Companion, count: int) -> None:
    """Corrections of messages like the measured ones, so the lookup has work to do."""
    for i in range(count):
        await companion.feedback.remember(Correction(
            user_id=USER, key=f"{MESSAGES[i % len(MESSAGES)]} ({i * 7})",
            feedback=f"No, I meant something else ({i})", understanding=None,
            answer=f"That sounds like {THINGS[i % len(THINGS)]}", persona="companion"))


async def seed_pool(companion: Companion, count: int) -> None:
    """Shared entries of every domain (the development set of benchmarks/sharing_eval,
    numbered), and a trained retriever in use, as a pool that grew in use would have."""
    requests = read_set("sharing_development").records
    personas = {p.domain: p.name for p in companion.personas.all.values()}
    for start in range(0, count, 500):
        await companion.pool.pool.add_written([
            PoolEntry(id=entry_id("overhead", i), prompt=f"{r['prompt']} ({i // len(requests)})",
                      answer=r["answer"], persona=personas[r["domain"]], domain=r["domain"],
                      kind=r["kind"], status=PoolStatus.SHARED, source="chat", score=85)
            for i in range(start, min(start + 500, count))
            for r in [requests[i % len(requests)]]])
    if count:
        print(f"Retriever: {(await companion.pool.retrain()).note}", flush=True)


async def embed_ms(companion: Companion) -> float:
    """The median time of one embedding: how busy the machine is, to read the table by."""
    timings = []
    for i in range(50):
        started = time.perf_counter()
        await companion.embedder.embed([f"{MESSAGES[i % len(MESSAGES)]} ({i})"])
        timings.append((time.perf_counter() - started) * 1000)
    return float(np.median(timings))


async def measure(companion: Companion) -> tuple[float, float]:
    for i in range(WARMUP_TURNS):
        await one_turn(companion, MESSAGES[i % len(MESSAGES)])
    timings = [await one_turn(companion, f"{MESSAGES[i % len(MESSAGES)]} ({i})")
               for i in range(MEASURED_TURNS)]
    p50, p95 = np.percentile(timings, [50, 95])
    return float(p50), float(p95)


async def run(sizes: list[int], feedback: int, facts: int, taught: int, pool: int,
              embeddings: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        # Upkeep would start summarizing (and merging the synthetic topics) in the background,
        # competing with the turns for the 2 cores: it is measured by benchmarks/upkeep.
        settings = load_settings(None, data_dir=folder, memory={"summarize_every": 1000},
                                 embeddings={"provider": embeddings})
        print(f"Seeding {ROUNDS:,} rounds...", flush=True)
        async with open_companion(settings, model=instant()):
            pass  # creates the database
        await seed_rounds(settings.sql_url)
        async with open_companion(settings, model=instant()) as companion:
            rng = random.Random(7)
            await seed_feedback(companion, feedback)
            print(f"Seeding {facts:,} facts and {taught:,} taught facts...", flush=True)
            await seed_facts(companion, facts, rng)
            await seed_facts(companion, taught, rng, Origin.TAUGHT)
            print(f"Seeding {pool:,} entries of the shared pool...", flush=True)
            await seed_pool(companion, pool)
            print(f"\n{feedback} corrections, {facts:,} facts, {taught:,} taught facts and "
                  f"{pool:,} shared pool entries stored", flush=True)
            print(f"This machine now: one embedding takes {await embed_ms(companion):.1f} ms "
                  "(2.7 ms on 28 November 2026, when the packaged MiniLM before it took 4.4): "
                  "shared 2-core machines vary.", flush=True)
            print("\n" + table_head("topics", "rounds", "p50 ms", "p95 ms", align="rrrr"),
                  flush=True)
            p95 = 0.0
            for size in sizes:
                await grow_topics(companion, size, rng)
                p50, p95 = await measure(companion)
                stored = await companion.rounds.count_rounds(USER)
                print(table_row(f"{size:,}", f"{stored:,}", f"{p50:.1f}", f"{p95:.1f}"),
                      flush=True)
    return p95


def main() -> None:
    # The benchmark writes 100,000 rounds: never into the data that COMPANION_* points at.
    without_companion_environment()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, help="measure only this many topics")
    parser.add_argument("--feedback", type=int, default=100, help="corrections stored")
    parser.add_argument("--facts", type=int, default=100_000, help="facts stored")
    parser.add_argument("--taught", type=int, default=1_000, help="taught facts stored")
    parser.add_argument("--pool", type=int, default=10_000, help="shared pool entries stored")
    parser.add_argument("--embeddings", choices=["local", "e5"], default="local",
                        help="embeddings.provider: the packaged MiniLM, or multilingual-e5")
    args = parser.parse_args()
    sizes = [args.topics] if args.topics is not None else [0, 1_000, 10_000]
    p95 = asyncio.run(run(sizes, args.feedback, args.facts, args.taught, args.pool,
                          args.embeddings))
    print(f"p95_ms={p95:.1f}")


if __name__ == "__main__":
    main()
