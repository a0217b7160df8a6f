"""How often a topic gets a label a person would accept (the everyday labels of the extractive
summarizer, jobs/summarize/labels.py), on statements written for it
(benchmarks/data/label_statements.jsonl).

Each statement is labelled as a one-sentence topic would be: its vector against the labels'.
A label is right when the statement lists it; a statement that fits no everyday topic is right
when no label is given. Printed for the tuning half (even positions) and the held-out half.

    python -m benchmarks.label_eval

The last line is `accuracy=<held-out share right>`.
"""

from __future__ import annotations

import asyncio

import numpy as np

from benchmarks.support import read_set
from bot.app import build_embedder
from bot.settings import load_settings
from jobs.summarize.labels import EverydayLabels

# (statement, the labels a person would accept; "" when no everyday topic fits)
STATEMENTS = [(r["statement"], tuple(r["labels"])) for r in read_set("label_statements").records]


async def labelled(statements: list[tuple[str, tuple[str, ...]]]) -> list[tuple[str, str, bool]]:
    embedder = build_embedder(load_settings(None).embeddings)
    labels = EverydayLabels(embedder)
    vectors = np.array(await embedder.embed([text for text, _ in statements]))
    found = []
    for (text, accepted), vector in zip(statements, vectors, strict=True):
        label = await labels.best(vector) or ""
        found.append((text, label, label in accepted))
    await embedder.aclose()
    return found


def report(name: str, found: list[tuple[str, str, bool]]) -> float:
    share = sum(right for _, _, right in found) / len(found)
    print(f"\n{name}: {sum(right for _, _, right in found)} of {len(found)} right ({share:.0%})")
    for text, label, right in found:
        if not right:
            print(f"  wrong: {label or '(none)':<14} {text}")
    return share


def main() -> None:
    tuning = [s for i, s in enumerate(STATEMENTS) if i % 2 == 0]
    held_out = [s for i, s in enumerate(STATEMENTS) if i % 2 == 1]
    report("tuning half", asyncio.run(labelled(tuning)))
    accuracy = report("held-out half", asyncio.run(labelled(held_out)))
    print(f"accuracy={accuracy:.3f}")


if __name__ == "__main__":
    main()
