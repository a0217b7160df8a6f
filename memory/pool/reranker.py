"""The pool's trained retriever: cosine, reranked by a model of the kinds of task.

The embedder alone ranks by subject: "another word for tired" sits next to "the opposite of
tired". The pool knows better, since its scorer says which kind of task each entry is. A
logistic model (scikit-learn) learns the kind from an entry's embedding and its words (word
pairs hashed, so there is no vocabulary to keep); an entry then scores

    cosine(message, entry) + weight * P(the entry's kind | message)

that is, the embedder's closeness plus how likely the message is a task of the entry's kind
(an entry not scored yet counts every kind as equally likely). Only the message is classified,
so a turn pays for one text, not for every candidate.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # scikit-learn and SciPy load when a pool entry is first scored or trained on
    from scipy import sparse
    from sklearn.feature_extraction.text import HashingVectorizer

WORD_FEATURES = 2**12
# How much the kind counts against cosine; chosen on the development set of
# benchmarks/sharing_eval.py (docs/pages/benchmarks.md).
KIND_WEIGHT = 2.0
REGULARIZATION = 16.0  # scikit-learn's C: larger trusts the pool's labels more


@functools.cache
def _hasher() -> HashingVectorizer:
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(n_features=WORD_FEATURES, ngram_range=(1, 2), alternate_sign=False,
                             norm="l2")


def features(vectors: np.ndarray, texts: Sequence[str]) -> sparse.csr_matrix:
    """An entry's embedding beside its hashed words and word pairs."""
    from scipy import sparse

    words = _hasher().transform(list(texts))
    stacked: sparse.csr_matrix = sparse.hstack([sparse.csr_matrix(vectors), words],
                                                format="csr")
    return stacked


@dataclass(frozen=True)
class KindModel:
    """What a training left: the classes ("domain/kind") and the logistic model's weights."""

    classes: tuple[str, ...]
    coef: np.ndarray  # (classes, features)
    intercept: np.ndarray
    weight: float = KIND_WEIGHT

    def probabilities(self, vectors: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        # The two parts of `features` apart: stacking them costs more than the products.
        dense = vectors.shape[1]
        words = _hasher().transform(list(texts))
        logits = (vectors @ self.coef[:, :dense].T + np.asarray(words @ self.coef[:, dense:].T)
                  + self.intercept)
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return np.asarray(odds / odds.sum(axis=1, keepdims=True))

    def scores(self, query: np.ndarray, query_text: str, labels: Sequence[str | None],
               cosines: np.ndarray) -> np.ndarray:
        """The reranked scores of candidates with these labels ("domain/kind", None when not
        known) and these cosines to the query."""
        [odds] = self.probabilities(query[None, :], [query_text])
        by_class = dict(zip(self.classes, odds, strict=True))
        unknown = 1.0 / len(self.classes)
        kind = np.array([by_class.get(label, 0.0) if label else unknown for label in labels])
        return cosines + self.weight * kind

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez_compressed(buffer, classes=np.array(self.classes), coef=self.coef,
                            intercept=self.intercept, weight=np.array(self.weight))
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> KindModel:
        with np.load(io.BytesIO(data), allow_pickle=False) as saved:
            return cls(tuple(str(c) for c in saved["classes"]), saved["coef"],
                       saved["intercept"], float(saved["weight"]))


def train(vectors: np.ndarray, texts: Sequence[str], labels: Sequence[str]) -> KindModel | None:
    """A kind model for these entries; None when they hold fewer than two kinds."""
    if len(set(labels)) < 2:
        return None
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=REGULARIZATION, max_iter=2000)
    model.fit(features(vectors, texts), list(labels))
    return KindModel(tuple(str(c) for c in model.classes_), model.coef_.astype(np.float32),
                     model.intercept_.astype(np.float32))


def label(domain: str, kind: str | None) -> str | None:
    """What the model calls a kind of task: "words/synonym"."""
    return f"{domain}/{kind}" if kind else None


@dataclass(frozen=True)
class Entries:
    """Pool entries as the ranking sees them: unit vectors, prompts, domains, kinds."""

    vectors: np.ndarray
    texts: tuple[str, ...]
    domains: tuple[str, ...]
    kinds: tuple[str | None, ...]

    def __len__(self) -> int:
        return len(self.texts)

    def labels(self) -> list[str]:
        return [label(d, k) or "" for d, k in zip(self.domains, self.kinds, strict=True)]

    def subset(self, rows: Sequence[int]) -> Entries:
        index = list(rows)
        return Entries(self.vectors[index], tuple(self.texts[i] for i in index),
                       tuple(self.domains[i] for i in index), tuple(self.kinds[i] for i in index))


CANDIDATES = 20  # found by cosine, then reranked


def rank(model: KindModel | None, query: np.ndarray, query_text: str,
         pool: Entries, limit: int) -> list[int]:
    """The rows of `pool` best for the query, best first: the `CANDIDATES` nearest by cosine,
    reranked by the model when there is one."""
    if not len(pool):
        return []
    cosines = pool.vectors @ query
    nearest = np.argsort(-cosines, kind="stable")[:CANDIDATES]
    labels = [label(pool.domains[i], pool.kinds[i]) for i in nearest]
    order = rerank(model, query, query_text, labels, cosines[nearest], limit)
    return [int(nearest[i]) for i in order]


def rerank(model: KindModel | None, query: np.ndarray, query_text: str,
           labels: Sequence[str | None], cosines: np.ndarray, limit: int) -> list[int]:
    """The order of candidates (nearest by cosine first) as the model ranks them."""
    if model is None:
        return list(range(min(limit, len(labels))))
    scored = model.scores(query, query_text, labels, cosines)
    return [int(i) for i in np.argsort(-scored, kind="stable")[:limit]]


def same_kind_at_1(model: KindModel | None, queries: Entries, pool: Entries,
                   *, by_domain: bool) -> float:
    """The share of queries whose first entry of the pool (of their domain when `by_domain`)
    is of their kind of task."""
    if not len(queries):
        return 0.0
    by_name = {d: pool.subset([i for i, e in enumerate(pool.domains) if e == d])
               for d in set(queries.domains)} if by_domain else {}
    hits = 0
    for row in range(len(queries)):
        scope = by_name[queries.domains[row]] if by_domain else pool
        first = rank(model, queries.vectors[row], queries.texts[row], scope, 1)
        hits += bool(first) and scope.kinds[first[0]] == queries.kinds[row] and (
            scope.domains[first[0]] == queries.domains[row])
    return hits / len(queries)
