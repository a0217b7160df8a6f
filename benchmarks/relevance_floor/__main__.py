"""Calibrate `chat.relevance_floor` for the packaged MiniLM embedder (or multilingual-e5).

Messages a user might send are scored against paper-style topic descriptions
(benchmarks/data/relevance_messages.jsonl). For each floor it prints the share of related
(message, topic) pairs kept and of unrelated pairs let in.

    python -m benchmarks.relevance_floor
    python -m benchmarks.relevance_floor --embeddings e5

The last line is `floor=<the highest floor that keeps at least 85% of related pairs>`.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.support import read_set, table_head, table_row
from bot.app import build_embedder
from bot.settings import load_settings

# Each topic's paper-style description, and the messages about each topic ("": about none).
TOPICS = {r["topic"]: r["description"] for r in read_set("relevance_messages").records
          if r["topic"]}
MESSAGES = {r["topic"]: r["messages"] for r in read_set("relevance_messages").records}
FLOORS = [0.10, 0.15, 0.20, 0.25, 0.30, 0.35]
TARGET_KEPT = 0.85


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embeddings", choices=["local", "e5"], default="local",
                        help="embeddings.provider: the packaged MiniLM, or multilingual-e5")
    provider = parser.parse_args().embeddings
    embedder = build_embedder(load_settings(None, embeddings={"provider": provider}).embeddings)
    labels = list(TOPICS)
    topic_vectors = np.array(embedder.embed_blocking([TOPICS[k] for k in labels]))
    related: list[float] = []
    unrelated: list[float] = []
    for subject, messages in MESSAGES.items():
        scores = np.array(embedder.embed_blocking(messages)) @ topic_vectors.T
        for row in scores:
            for label, score in zip(labels, row, strict=True):
                (related if label == subject else unrelated).append(score)
    kept_related = {f: float(np.mean(np.array(related) >= f)) for f in FLOORS}
    print(f"{len(related)} related and {len(unrelated)} unrelated (message, topic) pairs\n")
    print(table_head("floor", "related kept", "unrelated let in", align="rrr"))
    for floor in FLOORS:
        let_in = float(np.mean(np.array(unrelated) >= floor))
        print(table_row(f"{floor:.2f}", f"{kept_related[floor]:.0%}", f"{let_in:.1%}"))
    good_enough = [f for f in FLOORS if kept_related[f] >= TARGET_KEPT]
    print(f"floor={max(good_enough, default=min(FLOORS)):.2f}")


if __name__ == "__main__":
    main()
