"""Topic labels: the everyday label a group of sentences is closest to in meaning (no model
needed), and which label key a new topic joins: its own, or a near-synonym the user already has."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memory.protocols import Embedder
from memory.topics.rows import label_key

# (label, what it covers, and a few things people say about it): a topic is named after the
# label whose texts come closest to it. The sentences were written for this list, not taken
# from benchmarks/data/label_statements.jsonl.
EVERYDAY_TOPICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("hobbies", ("my hobbies: the sport I play, my club, games and what I do for fun",
                 "I go climbing with my club on weekends", "I knit and do jigsaw puzzles")),
    ("work", ("my work, job, shifts, career, boss and colleagues",
              "I had a long meeting with my manager", "I work as an accountant")),
    ("family", ("my family: parents, children, brother, sister and relatives",
                "my mum called me this morning", "my kids and my grandparents came over")),
    ("friends", ("my friends and my social life",
                 "I hung out with my mates last night", "my friend Sara came to visit")),
    ("relationships", ("my partner, dating, love and relationships",
                       "my boyfriend and I had dinner together", "my wife and I are engaged")),
    ("food", ("food, cooking, eating, restaurants and my favourite dishes",
              "I made pasta for dinner", "I tried a new recipe for cake")),
    ("travel", ("travel, trips, holidays, flights and places I want to visit",
                "I booked a train to Rome", "we spent our holiday by the sea")),
    ("health", ("my health, illness, pain, doctors and sleep",
                "I saw the doctor about my back", "I caught a cold and feel sick")),
    ("pets", ("my pets: my dog, my cat and other animals",
              "I walked my dog in the park", "my hamster escaped from its cage")),
    ("music", ("music, songs, instruments, bands and concerts",
               "I practise the violin every day", "I love listening to old rock songs")),
    ("movies", ("movies, films, tv shows and series I watch",
                "I watched a great film at the cinema", "we are watching a crime series")),
    ("books", ("books, novels and reading",
               "I'm halfway through a fantasy novel", "I borrowed three books from the library")),
    ("school", ("school, studies, university, exams and learning",
                "I have a lecture at university tomorrow", "I'm studying for my chemistry test")),
    ("money", ("money, bills, saving, spending and finances",
               "I can't afford a new car right now", "I paid off my loan")),
    ("home", ("my home, house, apartment, garden, moving and chores",
              "I cleaned the whole house today", "our landlord fixed the heating",
              "I planted vegetables in my garden")),
    ("feelings", ("my feelings, mood, stress, happiness and worries",
                  "I feel sad and tired of everything", "I'm excited and proud of myself")),
    ("plans", ("my plans, goals and dreams for the future",
               "next year I want to change careers", "my goal is to learn to swim")),
    ("technology", ("computers, phones, apps, software and technology",
                    "my computer keeps crashing", "I installed a new app on my phone")),
)


class EverydayLabels:
    """Names a group of sentences with the everyday topic closest in meaning, if close enough."""

    def __init__(self, embedder: Embedder, floor: float = 0.2) -> None:
        self._embedder = embedder
        self._floor = floor
        self._vectors: np.ndarray | None = None

    async def best(self, centroid: np.ndarray) -> str | None:
        if self._vectors is None:
            self._vectors = await self._topic_vectors()
        scores = self._vectors @ centroid
        best = int(np.argmax(scores))
        return EVERYDAY_TOPICS[best][0] if scores[best] >= self._floor else None


    async def _topic_vectors(self) -> np.ndarray:
        """Each topic's texts averaged, all embedded in one call."""
        texts = [text for _, topic_texts in EVERYDAY_TOPICS for text in topic_texts]
        vectors = iter(np.array(await self._embedder.embed(texts)))
        return np.array([_unit(np.mean([next(vectors) for _ in topic_texts], axis=0))
                         for _, topic_texts in EVERYDAY_TOPICS])


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


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
