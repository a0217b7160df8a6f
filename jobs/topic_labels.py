"""Everyday topic labels, matched by meaning with the embedder (no model needed)."""

from __future__ import annotations

import numpy as np

from memory.protocols import Embedder

# (label, what it covers): the longer text is what gets embedded.
EVERYDAY_TOPICS = (
    ("hobbies", "my hobbies: the sport I play, my club, games and what I do for fun"),
    ("work", "my work, job, shifts, career, boss and colleagues"),
    ("family", "my family: parents, children, brother, sister and relatives"),
    ("friends", "my friends and my social life"),
    ("relationships", "my partner, dating, love and relationships"),
    ("food", "food, cooking, eating, restaurants and my favourite dishes"),
    ("travel", "travel, trips, holidays, flights and places I want to visit"),
    ("health", "my health, illness, pain, doctors and sleep"),
    ("pets", "my pets: my dog, my cat and other animals"),
    ("music", "music, songs, instruments, bands and concerts"),
    ("movies", "movies, films, tv shows and series I watch"),
    ("books", "books, novels and reading"),
    ("school", "school, studies, university, exams and learning"),
    ("money", "money, bills, saving, spending and finances"),
    ("home", "my home, house, apartment, garden, moving and chores"),
    ("feelings", "my feelings, mood, stress, happiness and worries"),
    ("plans", "my plans, goals and dreams for the future"),
    ("technology", "computers, phones, apps, software and technology"),
)


class EverydayLabels:
    """Names a group of sentences with the everyday topic closest in meaning, if close enough."""

    def __init__(self, embedder: Embedder, floor: float = 0.2) -> None:
        self._embedder = embedder
        self._floor = floor
        self._vectors: np.ndarray | None = None

    async def best(self, centroid: np.ndarray) -> str | None:
        if self._vectors is None:
            self._vectors = np.array(await self._embedder.embed([t for _, t in EVERYDAY_TOPICS]))
        scores = self._vectors @ centroid
        best = int(np.argmax(scores))
        return EVERYDAY_TOPICS[best][0] if scores[best] >= self._floor else None
