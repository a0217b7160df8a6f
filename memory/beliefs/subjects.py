"""What a statement is about, by its meaning: the single-valued subject of a person's life it
says something about now (where they live, who they are with, where they work...), or none.

A statement's embedding is compared with a few sentences per subject, written for this list (not
taken from any benchmark set); the closest subject names it when it is close enough and is not
one of the subjects that hold many values at once (travel, plans, other people, small talk),
which are listed so that what is about them does not fall to the nearest single-valued one.
Whatever the phrasing, "finally hung the pictures in our new flat in Turin" lands on `home`.

The hand-written claims of `memory.beliefs.claims` stay the precise first pass: a sentence they
read names its subject by them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from memory.beliefs.claims import Claim, about_now
from memory.protocols import Embedder, Vector

# Subjects that hold one value at a time, each with things people say about it. Names a claim
# of `memory.beliefs.claims` gives map onto these (`subject_of_claim`).
SINGLE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("home", ("the city, town or country where I live now, my home, flat or house",
              "we moved to a new city last month", "our flat is tiny but the view is great",
              "I just unpacked the last boxes in our new apartment",
              "I'm a local here now, I know every street",
              "where do I live these days?")),
    ("work", ("my job, the company I work for, my profession and my workplace",
              "I started a new job at a bank", "first week at the new office done",
              "I'm a nurse at the city hospital", "handed in my notice at the agency",
              "what do I do for a living?")),
    ("partner", ("my partner: the person I'm dating, my boyfriend, girlfriend, wife or husband",
                 "I'm seeing someone new, she's lovely", "my boyfriend cooked dinner for me",
                 "we got engaged last weekend", "we broke up after three years",
                 "who am I with these days?")),
    ("pets", ("my pet: my dog, cat or other animal, and its name",
              "we adopted a puppy called Biscuit", "my cat sleeps on my keyboard",
              "we had to rehome our rabbit", "what is my pet called?")),
    ("diet", ("what I eat: my diet, vegetarian, vegan, meat",
              "I stopped eating meat last year", "I've gone fully plant-based",
              "what can I eat with my diet?")),
    ("habits", ("my habits: smoking, drinking coffee or alcohol, what I quit or started",
                "I quit smoking three weeks ago", "I've cut out coffee completely",
                "I'm off alcohol for good")),
    ("study", ("my school, university, course or degree, and what I study",
               "I enrolled in a nursing course", "my first lecture at the new uni was fun",
               "I switched my major to history", "what am I studying?")),
    ("car", ("the car, bike or vehicle I drive or ride, and how I get to work",
             "I sold my old car and bought an electric one", "I cycle to work now",
             "what do I drive?")),
    ("phone", ("my phone, laptop and the devices I use",
               "I switched to an Android phone", "my new laptop is so fast")),
    ("hobby", ("my hobby, the sport I play, my gym and what I do for fun",
               "I've taken up bouldering", "I joined a new gym near the station",
               "I gave up tennis and started swimming")),
    ("music", ("my favourite music, band, singer or song, and the instrument I play",
               "I'm obsessed with jazz lately", "I've started learning the cello")),
    ("team", ("the sports team I support", "I'm a lifelong Arsenal fan",
              "my team won the league")),
    ("shows", ("my favourite tv show, series, film or book",
               "I'm hooked on a new crime series", "my favourite book is Dune")),
    ("food", ("my favourite food, dish, drink or restaurant",
              "pizza is my absolute favourite", "my go-to order is a flat white")),
    ("language", ("the language I'm learning or speak",
                  "I'm learning Japanese on an app", "my Spanish lessons are going well")),
    ("looks", ("how I look: my hair colour, haircut, glasses, tattoos",
               "I dyed my hair red", "I got contact lenses instead of glasses")),
    ("schedule", ("my schedule: shifts, working hours, when I sleep and wake up",
                  "I'm on night shifts this month", "I work from home on Fridays now")),
    ("age", ("my age and my birthday", "I turned 30 yesterday", "I'm 42 years old")),
    ("family", ("my children, how many kids or siblings I have",
                "we have two kids now", "our baby was born last week", "I'm an only child")),
    ("name", ("my name and what people call me", "my name is Alex", "call me Jo")),
)
# Subjects that hold many values at once: a statement closest to one of these claims nothing.
MANY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("travel", ("a trip, a holiday, a visit or travelling somewhere for a while",
                "off to Lisbon for a week", "we're visiting my parents this weekend",
                "the flight was delayed by two hours")),
    ("plans", ("plans, wishes and dreams for the future",
               "one day I'd love to live by the sea", "I might apply for a new job")),
    ("others", ("what other people do: friends, family, colleagues, neighbours",
                "my sister moved to Oslo", "my friend got a new job", "my mum loves her garden")),
    ("feelings", ("how I feel today, my mood, what happened today, small talk",
                  "what a day, I'm exhausted", "lol that's so funny", "the weather is awful")),
    ("chores", ("errands, chores and what I did today",
                "I cleaned the kitchen", "went grocery shopping", "I fixed the leaking tap")),
)
# How far the agreement's weights spread over subjects close in cosine (a softmax temperature):
# at 0.1 a statement 0.1 closer to one subject than another weighs e (2.7) times as much on it.
AGREEMENT_SPREAD = 0.1
# What a claim's subject ("home", "pet_name:dog", "likes:jazz") is part of, by its first word.
_CLAIM_SUBJECTS = {
    "home": "home", "country": "home", "job": "work", "employer": "work", "name": "name",
    "partner_name": "partner", "relationship": "partner", "pet_name": "pets", "has_pet": "pets",
    "age": "age", "diet": "diet", "smokes": "habits",
}
_COUNTED_SUBJECTS = {"pets": "pets", "cats": "pets", "dogs": "pets"}
_FAVOURITES = {"team": "team", "food": "food", "dish": "food", "drink": "food", "meal": "food",
               "music": "music", "genre": "music", "band": "music", "song": "music",
               "singer": "music", "artist": "music", "film": "shows", "movie": "shows",
               "show": "shows", "series": "shows", "book": "shows", "sport": "hobby"}


def subject_of_claim(claim: Claim) -> str:
    """The subject a hand-written claim is part of: "pet_name:dog" is about `pets`,
    "count:kids" about `family`, "favorite:band" about `music`; likes, and favourites of what no
    subject covers, keep their own ("likes:jazz", "favorite:color")."""
    head, _, rest = claim.subject.partition(":")
    if head == "count":
        return _COUNTED_SUBJECTS.get(rest, "family")
    if head == "favorite" and rest in _FAVOURITES:
        return _FAVOURITES[rest]
    return _CLAIM_SUBJECTS.get(head, claim.subject)


class Subjects:
    """Names the single-valued subject a statement of a person about themselves is about."""

    def __init__(self, embedder: Embedder, floor: float = 0.25) -> None:
        """`floor`: the cosine a statement needs with a subject's closest sentence."""
        self._embedder = embedder
        self._floor = floor
        self._names: list[str] = []
        self._vectors: np.ndarray | None = None
        self._starts: np.ndarray | None = None  # where each subject's sentences start
        self._loading = asyncio.Lock()

    async def of(self, texts: Sequence[str], vectors: Sequence[Vector] | None = None
                 ) -> list[str | None]:
        """The subject of each text (None: none, or not said of the speaker as now).
        `vectors`: the texts' embeddings when they are at hand."""
        if vectors is None:
            vectors = await self._embedder.embed(list(texts)) if texts else []
        return [self.of_vector(text, vector)
                for text, vector in zip(texts, vectors, strict=True)]

    def of_vector(self, text: str, vector: Vector) -> str | None:
        if self._vectors is None or not about_now(text):
            return None
        return self.nearest(vector)

    def nearest(self, vector: Vector) -> str | None:
        """The single-valued subject closest in meaning to a statement, if close enough."""
        found = self.closest(vector, 1, self._floor)
        return found[0] if found else None

    def closest(self, vector: Vector, count: int, floor: float) -> list[str]:
        """Up to `count` single-valued subjects closest in meaning (a message may be about one
        in words far from what is said of it: "which airport should she fly into?"), each at
        least `floor` and closer than any subject of many values."""
        if self._vectors is None:
            return []
        scores = self._vectors @ np.asarray(vector, dtype=np.float32)
        found: list[str] = []
        for row in np.argsort(-scores):
            name = self._names[int(row)]
            if scores[row] < floor or name.startswith("~") or len(found) == count:
                break
            if name not in found:
                found.append(name)
        return found

    async def load(self) -> Subjects:
        """Embed the subjects' sentences (once); returns self. The turns that find them not
        loaded yet wait for one load: a bot that starts under load once sent each turn's own
        copy of the ~100 sentences to the embedder, seconds of work ahead of every message."""
        if self._vectors is None:
            async with self._loading:
                if self._vectors is None:
                    pairs = [(name, text) for name, texts in SINGLE for text in texts]
                    pairs += [(f"~{name}", text) for name, texts in MANY for text in texts]
                    vectors = await self._embedder.embed([text for _, text in pairs])
                    self._names = [name for name, _ in pairs]
                    self._starts = np.flatnonzero(
                        [i == 0 or pairs[i - 1][0] != name for i, (name, _) in enumerate(pairs)])
                    self._vectors = np.asarray(vectors, dtype=np.float32)
        return self

    def agreement(self, vector: Vector, others: Sequence[Vector] | np.ndarray) -> np.ndarray:
        """How much each of `others` is about the same part of life as `vector`, by meaning,
        from 0 to 1: the chance that the two fall on one subject (of one value or of many)
        when each falls on a subject with a weight that grows with its closeness to the
        subject's sentences. Soft, so it holds where `nearest` names none or the wrong one: "what
        kind of bike do I ride?" and "rode my yellow fixie through the snow" share `car`."""
        if self._vectors is None or self._starts is None or len(others) == 0:
            return np.zeros(len(others), dtype=np.float32)
        texts = np.asarray([vector, *others], dtype=np.float32)
        closeness = np.maximum.reduceat(texts @ self._vectors.T, self._starts, axis=1)
        weights = np.exp((closeness - closeness.max(axis=1, keepdims=True)) / AGREEMENT_SPREAD)
        weights /= weights.sum(axis=1, keepdims=True)
        agreement: np.ndarray = weights[1:] @ weights[0]
        return agreement
