"""Which of the person's own statements, among the memories a reply was given, answers their
question about themselves ("what kind of bike do I ride?").

A statement is scored by its cosine with the question plus how much the two are about the same
part of life (`memory.life_parts`, a model trained for it; `Subjects.agreement` for embedders
it cannot read; weighed by `AGREEMENT_WEIGHT`): a statement said indirectly
("rode my yellow fixie through the snow today") sits at a low cosine with the question, and
small talk that shares a word with it ("ok going to pretend to study now" for "what am I
studying?") at a high one; what each is about tells them apart. The best one answers when its
score reaches `MIN_SCORE`; asked where the person lives, one that names a place counts for more
(`memory.places`). A statement shown as earlier (a newer one on its subject is in the prompt
too) is passed over for the newer one when that one answers at least 0.8 as well, by
`Subjects.agreement`. Whether a message asks about the person at all is the rules' to say
(`memory.questions`), with `memory.asking`'s second look at a question without a word for them.

Relevance brings the statement not yet summarized that scores best into the prompt of a question
about the person (`Answers.best`), so that one said in passing is there to be shown.

Tuned on benchmarks/data/demo_conversations_development.jsonl and _independent.jsonl (every
question's right statement, against the small talk and general questions of the same chats):
tuned on either half, the weights carried over to the other (0.97 and 0.98 right); the place
weight and the replacing share on _independent2 to _independent4 after each had been run once;
the learned reading replaced the sentences' in choosing on 29 November 2026 (464 of 512 right on
the eight read chat sets with the asking gate, against 444). The measure is
`python -m benchmarks.demo_probe`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory.asking import AskingGate
from memory.beliefs.subjects import Subjects
from memory.errors import EmbeddingUnavailable
from memory.life_parts import LifeParts
from memory.places import Places
from memory.protocols import Embedder, Vector
from memory.questions import asks_about_the_speaker, asks_where, is_question
from memory.types import Fact, Found, Origin, Recall, Speaker

log = logging.getLogger(__name__)

# The weight of the subject agreement (0 to 1) beside the cosine (about -0.1 to 0.8 for MiniLM).
AGREEMENT_WEIGHT = 0.8
# The score a statement needs to answer. On the development chats, 0.125-0.2 kept the same
# answers, and no general question ("how do I sharpen a chisel?") was answered from memory.
MIN_SCORE = 0.175
# What naming a place adds to a statement's score for a question that asks where: on the
# development chats, a place said in passing ("Tampines so hot today", 0.18) then wins over
# small talk (up to about 0.3).
PLACE_WEIGHT = 0.2
HOME = "home"  # the subject of where the person lives (memory.beliefs.subjects)
HOME_FLOOR = 0.2  # the cosine a question needs with it, as its closest subject
# How well a newer statement on a subject must answer, against an earlier one, to replace it:
# "we moved to Berlin" (0.67) replaces "I live in Paris" (0.61) for "where do I live?"; small
# talk read as news of the subject ("Just sitting on the porch with my coffee", 0.22) does not
# replace "Doc says my type 2 diabetes is under control" (0.41). 0.5 let it.
REPLACING_SHARE = 0.8


class Answers:
    """Finds the statement that answers a question about the person, in a recall."""

    def __init__(self, embedder: Embedder, subjects: Subjects, places: Places | None = None,
                 life_parts: LifeParts | None = None, asking: AskingGate | None = None
                 ) -> None:
        """`places`: names places, for questions that ask where (None: meaning alone).
        `life_parts`: the learned reading of what a message is about, and `asking` the learned
        second look at whether it asks about the person, when they read `embedder`'s vectors
        (None: the subjects' sentences, and the rules alone)."""
        self._embedder = embedder
        self._subjects = subjects
        self._places = places
        self._life_parts = life_parts
        self._asking = asking

    def asks_about_them(self, message: str, vector: Vector) -> bool:
        """Whether `message` (whose vector is `vector`) asks about the person."""
        if self._asking is None:
            return asks_about_the_speaker(message)
        return self._asking.asks(message, vector)

    async def answering(self, recall: Recall, question: str) -> Found | None:
        """The statement of the person's in `recall.relevant` that answers `question`, if it
        asks about them and one does (None also when the embedder cannot read it now)."""
        candidates = [found for found in recall.relevant if _theirs(found)]
        if not candidates or recall.words_only:
            return None
        try:
            question_vector, *vectors = await self._embedder.embed(
                [question, *(_said(found).text for found in candidates)])
        except EmbeddingUnavailable as error:
            log.warning("No memory shown under this reply: %s", error)
            return None
        if not self.asks_about_them(question, question_vector):
            return None
        await self._subjects.load()
        places = await self._place_bonus(question, question_vector,
                                         [_said(found).text for found in candidates])
        scores = self._scored(question_vector, vectors) + places
        by_sentences = self._scored_by_sentences(question_vector, vectors) + places
        scored = [_Scored(found, float(score), float(by_subjects)) for found, score, by_subjects
                  in zip(candidates, scores, by_sentences, strict=True)]
        kept = [one for one in scored if one.score >= MIN_SCORE and not _replaced(one, scored)]
        return max(kept, key=lambda one: one.score).found if kept else None

    async def best(self, question: str, vector: Vector,
                   statements: Sequence[tuple[Fact, Vector | np.ndarray]]
                   ) -> tuple[Fact, float] | None:
        """The statement that answers `question` (whose vector is `vector`) best of
        `statements` (each with its vector), with its score, if one reaches `MIN_SCORE`."""
        if not statements:
            return None
        await self._subjects.load()
        scores = self._scored(vector, np.asarray([v for _, v in statements], dtype=np.float32))
        scores += await self._place_bonus(question, vector, [fact.text for fact, _ in statements])
        best = int(np.argmax(scores))
        return (statements[best][0], float(scores[best])) if scores[best] >= MIN_SCORE else None

    async def _place_bonus(self, question: str, vector: Vector,
                           statements: Sequence[str]) -> np.ndarray:
        """`PLACE_WEIGHT` for each statement that names a place, when `question` asks where the
        person lives (`asks_where`, and closest in meaning to their home of all subjects:
        "where do I work?" asks for a workplace)."""
        if (self._places is None or not asks_where(question)
                or self._subjects.closest(vector, 1, HOME_FLOOR) != [HOME]):
            return np.zeros(len(statements), dtype=np.float32)
        places = await self._places.load()
        return np.asarray([PLACE_WEIGHT * places.named_in(text) for text in statements],
                          dtype=np.float32)

    def _scored(self, question: Vector, vectors: Sequence[Vector] | np.ndarray) -> np.ndarray:
        """How well each statement answers: its cosine with the question, and how much the two
        are about one part of life by the learned reading (`memory.life_parts`), which knows a
        job by its work ("repointing a chimney") and small talk for what it is; by the
        subjects' sentences without it."""
        if self._life_parts is None:
            return self._scored_by_sentences(question, vectors)
        return (_cosines(question, vectors)
                + AGREEMENT_WEIGHT * self._life_parts.agreement(question, vectors))

    def _scored_by_sentences(self, question: Vector, vectors: Sequence[Vector] | np.ndarray
                             ) -> np.ndarray:
        """The same with the subjects' sentences, which know a move for news of home, where
        the learned reading sees an event: whether a newer statement replaces an earlier one
        on its subject is judged by it."""
        return (_cosines(question, vectors)
                + AGREEMENT_WEIGHT * self._subjects.agreement(question, vectors))


def _cosines(question: Vector, vectors: Sequence[Vector] | np.ndarray) -> np.ndarray:
    cosines: np.ndarray = (np.asarray(vectors, dtype=np.float32)
                           @ np.asarray(question, dtype=np.float32))
    return cosines


def _replaced(one: _Scored, scored: list[_Scored]) -> bool:
    """A statement shown as earlier is replaced by a newer one on its subject that answers
    at least `REPLACING_SHARE` as well, by the subjects' sentences: small talk whose subject
    was misread ("Okay, that's enough procrastinating" taken for news of the car) replaces
    nothing."""
    if not one.found.earlier:
        return False
    subject = _said(one.found).subject
    return any(not other.found.earlier and _said(other.found).subject == subject
               and other.by_sentences >= max(MIN_SCORE, REPLACING_SHARE * one.by_sentences)
               for other in scored)


@dataclass(frozen=True, slots=True)
class _Scored:
    found: Found
    score: float  # how well it answers the question
    by_sentences: float  # the same by the subjects' sentences


def _theirs(found: Found) -> bool:
    """Something the person said or taught (not what the companion said, nor a question)."""
    fact = found.memory
    return (isinstance(fact, Fact) and (fact.origin is Origin.TAUGHT
                                        or fact.speaker is Speaker.USER)
            and not is_question(fact.text))


def _said(found: Found) -> Fact:
    assert isinstance(found.memory, Fact)
    return found.memory
