"""Which part of a person's life a message is about (work, home, pets, health...), as a learned
model reads it from the message's meaning.

A question about the person and the statement that answers it are about the same part of life,
however differently they are worded: "what do I do for a living?" and "spent all morning on a
scaffold repointing a chimney" are both about work, and "long week, I'm done in" about nothing
lasting. The model is a multinomial logistic regression over the MiniLM vector, trained
on labelled messages written for it (`python -m benchmarks.demo_probe.train_life_parts` writes
`life_parts.json`). Its labels include parts that hold no lasting fact (small talk, chores,
general questions): they take the weight of such messages, and never make two messages agree.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory.protocols import Embedder, Vector

LIFE_PARTS_FILE = Path(__file__).with_name("life_parts.json")
# Labels of messages that say nothing lasting about the person.
NOTHING_LASTING = frozenset({"smalltalk", "chores", "general"})


@dataclass(frozen=True, slots=True)
class LifeParts:
    """A trained reading of parts of life: the vector space it reads, its labels and weights."""

    embedder: str  # the `Embedder.name` of the vectors it was trained on
    labels: tuple[str, ...]
    weights: np.ndarray  # one row of weights per label
    bias: np.ndarray

    @classmethod
    def packaged(cls) -> LifeParts:
        data = json.loads(LIFE_PARTS_FILE.read_text(encoding="utf-8"))
        return cls(embedder=data["embedder"], labels=tuple(data["labels"]),
                   weights=np.asarray(data["weights"], dtype=np.float32),
                   bias=np.asarray(data["bias"], dtype=np.float32))

    def fits(self, embedder: Embedder) -> bool:
        """Whether it can read `embedder`'s vectors (those it was trained on)."""
        return embedder.name == self.embedder

    def probabilities(self, vectors: Sequence[Vector] | np.ndarray) -> np.ndarray:
        """For each vector, how likely its message is about each label (rows sum to 1)."""
        scores = np.asarray(vectors, dtype=np.float32) @ self.weights.T + self.bias
        scores = np.exp(scores - scores.max(axis=1, keepdims=True))
        probabilities: np.ndarray = scores / scores.sum(axis=1, keepdims=True)
        return probabilities

    def agreement(self, vector: Vector, others: Sequence[Vector] | np.ndarray) -> np.ndarray:
        """How likely each of `others` is about the same lasting part of life as `vector`, from
        0 to 1: the chance that both fall on one part, counting only parts that hold a lasting
        fact (two pieces of small talk do not agree)."""
        if len(others) == 0:
            return np.zeros(0, dtype=np.float32)
        lasting = np.asarray([label not in NOTHING_LASTING for label in self.labels])
        probabilities = self.probabilities([vector, *others])[:, lasting]
        agreement: np.ndarray = probabilities[1:] @ probabilities[0]
        return agreement
