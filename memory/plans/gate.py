"""A learned second look at what the finder reads as a plan.

The finder's rules read the parse of one clause; what they miss is what a sentence as a whole
is about ("the new Star Wars film comes out on the 18th": a date, but nobody's plan). The gate
is a logistic regression over the sentence's MiniLM vector, trained on messages labelled plan
or not (`python -m benchmarks.plans_eval.train_gate` writes `plan_gate.json`). A sentence is
kept unless the gate is fairly sure it is no plan: the threshold is low, so it vetoes rather
than decides.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from memory.plans.finder import FoundPlan
from memory.protocols import Embedder, Vector

GATE_FILE = Path(__file__).with_name("plan_gate.json")


@dataclass(frozen=True, slots=True)
class GateWeights:
    """A trained gate (a logistic regression over one sentence's vector): the vector space it
    reads, its weights and where it says no."""

    embedder: str  # the `Embedder.name` of the vectors it was trained on
    weights: tuple[float, ...]
    bias: float
    threshold: float  # below this probability, a sentence is no plan

    @classmethod
    def packaged(cls) -> GateWeights:
        return cls.from_file(GATE_FILE)

    @classmethod
    def from_file(cls, path: Path) -> GateWeights:
        """A gate written by a training script: `embedder`, `weights`, `bias`, `threshold`."""
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(embedder=data["embedder"], weights=tuple(data["weights"]),
                   bias=float(data["bias"]), threshold=float(data["threshold"]))

    def probability(self, vector: Vector) -> float:
        """How likely the sentence of this vector tells of a plan."""
        score = self.bias + sum(w * x for w, x in zip(self.weights, vector, strict=True))
        return 1 / (1 + math.exp(-score))


class PlanGate:
    """Keeps the found plans the gate does not rule out. Needs the embedder it was trained
    with (the packaged MiniLM): `fits` says whether an embedder is that one."""

    def __init__(self, embedder: Embedder, weights: GateWeights | None = None) -> None:
        self._weights = weights or GateWeights.packaged()
        if embedder.name != self._weights.embedder:
            raise ValueError(f"The plan gate reads {self._weights.embedder} vectors, "
                             f"not {embedder.name}")
        self._embedder = embedder

    @staticmethod
    def fits(embedder: Embedder) -> bool:
        return embedder.name == GateWeights.packaged().embedder

    async def plans_among(self, found: list[FoundPlan]) -> list[FoundPlan]:
        """The found plans whose sentences the gate does not rule out."""
        if not found:
            return []
        vectors = await self._embedder.embed([plan.text for plan in found])
        return [plan for plan, vector in zip(found, vectors, strict=True)
                if self._weights.probability(vector) >= self._weights.threshold]
