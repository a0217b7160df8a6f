"""A learned second look at a question the rules do not read as about the person.

`memory.questions` reads a question as about its speaker by its words ("my", "I", "we"); people
also ask without them: "dog's name?", "And the wife's name?", "where's the big trip to",
"what kind of dog is Bella again". The gate is a logistic regression over the question's MiniLM
vector, trained on questions that ask to be reminded of something told and on general
questions (`python -m benchmarks.demo_probe.train_asking` writes `asking_gate.json`). It is
asked only about a question that is no request for advice, and its threshold is high: a memory
shown under a question about the world is worse than none.
"""

from __future__ import annotations

from pathlib import Path

from memory.plans.gate import GateWeights
from memory.protocols import Embedder, Vector
from memory.questions import asks_about_the_speaker, may_ask_about_the_speaker

ASKING_FILE = Path(__file__).with_name("asking_gate.json")


class AskingGate:
    """Says whether a message asks the companion about the person who wrote it."""

    def __init__(self, weights: GateWeights | None = None) -> None:
        self._weights = weights or GateWeights.from_file(ASKING_FILE)

    def fits(self, embedder: Embedder) -> bool:
        """Whether it reads `embedder`'s vectors (those it was trained on)."""
        return embedder.name == self._weights.embedder

    def asks(self, message: str, vector: Vector) -> bool:
        """By the rules, or, for a question they do not read as about the person, by the
        gate (`vector`: the message's)."""
        if asks_about_the_speaker(message):
            return True
        return (may_ask_about_the_speaker(message)
                and self._weights.probability(vector) >= self._weights.threshold)
