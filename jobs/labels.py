"""Which label key a new topic joins: its own, or a near-synonym the user already has."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memory.labels import label_key
from memory.protocols import Embedder


class LabelResolver:
    """"hobby", "Hobbies" and "hobbies and sports" meet under one key, so they can be merged."""

    def __init__(self, embedder: Embedder, similarity: float) -> None:
        self._embedder = embedder
        self._similarity = similarity

    async def keys_for(self, labels: Sequence[str], existing: Sequence[str]) -> list[str]:
        candidates = [label_key(label) or "life" for label in labels]
        if all(key in existing for key in candidates):
            return candidates  # nothing new to compare: no embedding needed
        texts = list(dict.fromkeys([*existing, *candidates]))
        vectors = dict(zip(texts, np.array(await self._embedder.embed(texts)), strict=True))
        known = list(existing)
        keys = []
        for candidate in candidates:
            key = self._resolve(candidate, known, vectors)
            if key not in known:
                known.append(key)
            keys.append(key)
        return keys

    def _resolve(self, key: str, known: list[str], vectors: dict[str, np.ndarray]) -> str:
        if key in known or not known:
            return key
        scores = np.array([vectors[k] for k in known]) @ vectors[key]
        best = int(np.argmax(scores))
        return known[best] if scores[best] >= self._similarity else key
