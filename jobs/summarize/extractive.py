"""Topics and facts without a language model: the sentences said, kept verbatim.

Topics: the user's sentences about themselves (first person, no questions, no small talk) are
embedded and clustered; each group is named by the everyday topic closest in meaning (or its
top keyword) and described by its most central sentences, verbatim, in order, each with the day
it was said. Facts: every
sentence of the user worth keeping, and every concrete suggestion of the companion, each whole.
Verbatim sentences cannot invent anything.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from jobs.summarize.drafts import FactDraft, TopicDraft, Voices, WindowDrafts
from jobs.summarize.labels import EverydayLabels
from jobs.summarize.parsing import keyword_label
from memory.days import day
from memory.protocols import Embedder
from memory.statements import self_statements, split_sentences, suggestions, user_facts
from memory.types import Round, Speaker

# "The host and I talked about X, and the host said (that):" and the like, before the facts.
_TEMPLATE_HEAD = re.compile(
    r"^.*?talked about [^,.;:]*[,.;:]\s*(?:and\s+)?(?:(?:the\s+)?\w+\s+)?"
    r"(?:said|mentioned|shared|expressed|told me)\b(?:\s+that)?\s*:?\s*",
    re.IGNORECASE | re.DOTALL,
)


class ExtractiveSummarizer:
    """`Summarizer` that only ever quotes the user."""

    def __init__(
        self,
        embedder: Embedder,
        *,
        max_sentences: int = 3,
        max_chars: int = 280,
        cluster_distance: float = 0.75,
        duplicate_similarity: float = 0.9,
        companion_facts: bool = True,
    ) -> None:
        """`companion_facts`: keep the companion's concrete suggestions as facts (not when its
        lines come from the bundled demo model, which invents)."""
        self._embedder = embedder
        self._companion_facts = companion_facts
        self._labels = EverydayLabels(embedder)
        self._max_sentences = max_sentences
        self._max_chars = max_chars
        self._distance = cluster_distance
        self._duplicate = duplicate_similarity

    async def summarize(self, rounds: Sequence[Round], voices: Voices) -> list[TopicDraft]:
        """Each sentence quoted with the day it was said: a window spans days or weeks."""
        said_at: dict[str, datetime] = {}
        for round_ in rounds:
            for sentence in self_statements(round_.user_text):
                said_at.setdefault(sentence, round_.created_at)
        said = list(said_at)
        if not said:
            return []  # small talk only: nothing about the user to keep
        said_vectors = np.array(await self._embedder.embed(said))
        kept = self._drop_duplicates(said_vectors)
        sentences, vectors = [said[i] for i in kept], said_vectors[kept]
        days = [said_at[sentence] for sentence in sentences]
        groups = await asyncio.to_thread(self._cluster, vectors)
        by_label: dict[str, list[int]] = {}
        for members in groups:
            label = await self._label(sentences, vectors, members)
            by_label.setdefault(label, []).extend(members)
        drafts = []
        for label, members in by_label.items():
            description, chosen = self._describe(label, sentences, vectors, sorted(members),
                                                 voices, days)
            drafts.append(TopicDraft(label, description, said_from=min(days[i] for i in chosen),
                                     said_until=max(days[i] for i in chosen)))
        return drafts

    async def window(self, rounds: Sequence[Round], voices: Voices) -> WindowDrafts:
        return WindowDrafts(await self.summarize(rounds, voices), await self.facts(rounds, voices))

    async def facts(self, rounds: Sequence[Round], voices: Voices) -> list[FactDraft]:
        return extract_facts(rounds, companion=self._companion_facts)

    async def merge_many(self, topics: Sequence[tuple[str, Sequence[str]]], voices: Voices
                         ) -> list[str | None]:
        return [await self.merge(label, descriptions, voices) for label, descriptions in topics]

    async def merge(self, label: str, descriptions: Sequence[str], voices: Voices) -> str:
        """Keep the newest and most central sentences, drop near-duplicates, in time order."""
        sentences = [s for d in descriptions for s in split_sentences(_said_part(d))]
        if not sentences:
            return descriptions[-1]
        vectors = np.array(await self._embedder.embed(sentences))
        kept = self._drop_duplicates(vectors)
        recency = np.linspace(0.0, 1.0, len(sentences))  # the newest view matters most
        centroid = _unit(vectors[kept].mean(axis=0))
        ranked = sorted(kept, key=lambda i: -(recency[i] + float(vectors[i] @ centroid)))
        return self._compose(label, sentences, ranked, voices)[0]

    def _cluster(self, vectors: np.ndarray) -> list[list[int]]:
        if len(vectors) == 1:
            return [[0]]
        from sklearn.cluster import AgglomerativeClustering  # loaded at the first summary

        model = AgglomerativeClustering(
            n_clusters=None, metric="cosine", linkage="average",
            distance_threshold=self._distance,
        )
        assignment = model.fit_predict(vectors)
        return [list(np.flatnonzero(assignment == c)) for c in np.unique(assignment)]

    async def _label(self, sentences: list[str], vectors: np.ndarray, members: list[int]) -> str:
        centroid = _unit(vectors[members].mean(axis=0))
        everyday = await self._labels.best(centroid)
        if everyday:
            return everyday
        keyword = await asyncio.to_thread(keyword_label, " ".join(sentences[i] for i in members))
        return keyword or "life"

    def _describe(self, label: str, sentences: list[str], vectors: np.ndarray,
                  members: list[int], voices: Voices, days: list[datetime]
                  ) -> tuple[str, list[int]]:
        centroid = _unit(vectors[members].mean(axis=0))
        central = sorted(members, key=lambda i: -float(vectors[i] @ centroid))
        dated = [f"({day(days[i])}) {_capitalized(s)}" for i, s in enumerate(sentences)]
        return self._compose(label, dated, central, voices)

    def _compose(self, label: str, sentences: list[str], ranked: list[int],
                 voices: Voices) -> tuple[str, list[int]]:
        """The best-ranked sentences under the length cap, told in the order they were said,
        and which they are."""
        head = f"The {voices.user} and I talked about {label}, and the {voices.user} said: "
        chosen: list[int] = []
        length = len(head)
        for i in ranked:
            if len(chosen) == self._max_sentences or length + len(sentences[i]) > self._max_chars:
                continue
            chosen.append(i)
            length += len(sentences[i]) + 1
        if not chosen:  # one long sentence: keep its start
            cut = sentences[ranked[0]][: self._max_chars - len(head)].rstrip() + "…"
            return head + cut, [ranked[0]]
        return head + " ".join(_capitalized(sentences[i]) for i in sorted(chosen)), chosen

    def _drop_duplicates(self, vectors: np.ndarray) -> list[int]:
        """Indices kept when near-duplicates go, the newer of each pair staying."""
        kept: list[int] = []
        for i in reversed(range(len(vectors))):
            if all(float(vectors[i] @ vectors[j]) < self._duplicate for j in kept):
                kept.append(i)
        return sorted(kept)


def extract_facts(rounds: Sequence[Round], *, companion: bool = True) -> list[FactDraft]:
    """The window's facts in the order said (the companion's suggestions too, if
    `companion`); a sentence said again is kept once (the first)."""
    found: dict[tuple[Speaker, str], FactDraft] = {}
    for round_ in rounds:
        said = [(Speaker.USER, s) for s in user_facts(round_.user_text)]
        if companion:
            said += [(Speaker.COMPANION, s) for s in suggestions(round_.reply_text or "")]
        for speaker, sentence in said:
            key = (speaker, " ".join(sentence.lower().split()))
            found.setdefault(key, FactDraft(sentence, speaker, (round_.id,), round_.created_at))
    return list(found.values())


def _said_part(description: str) -> str:
    return _TEMPLATE_HEAD.sub("", description, count=1)


def _capitalized(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-12)
