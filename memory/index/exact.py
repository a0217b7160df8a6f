"""An exact search of a few thousand vectors held in memory.

A query of the vector store costs 2-3 ms of CPU however small the collection (embedded
chromadb's floor, docs/pages/performance.md); the product of a message's vector with a few
thousand unit vectors costs a tenth of a millisecond, and finds the true nearest ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memory.protocols import Vector


def unit(vector: Vector | np.ndarray) -> np.ndarray:
    as_array = np.asarray(vector, dtype=np.float32)
    return as_array / max(float(np.linalg.norm(as_array)), 1e-12)


def units(vectors: Sequence[Any]) -> np.ndarray:
    """(vectors, dimensions), each of unit length; (0, 0) for none."""
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([unit(v) for v in vectors])


def nearest(held: np.ndarray, vector: Vector, limit: int) -> list[tuple[int, float]]:
    """The rows of `held` (unit vectors) nearest to `vector`, with their cosines, nearest
    first."""
    if limit <= 0 or not len(held):
        return []
    cosines = held @ unit(vector)
    top = min(limit, len(cosines))
    best = np.argpartition(-cosines, top - 1)[:top]
    best = best[np.argsort(-cosines[best], kind="stable")]
    return [(int(i), float(cosines[i])) for i in best]
