"""A learned second look at the words of a text to share, after the rules
(`memory.pool.presidio`, `memory.pool.ties`): is a word a person's, or part of the task?

The rules miss names spaCy's small model reads as common words or does not know ("ugh bill
from accounts"), and take out places and names that are what a request is about ("a 4-day
trip to Lisbon", "a haiku about Kyoto"). Five small networks (one hidden layer each, trained
with scikit-learn from five seeds, their chances averaged; weights in `scrub_tagger.npz`) read
each word as:

- what MiniLM makes of it in its context (`memory.embeddings.token_states`);
- its shape (a capital, digits, an @, its length, the start of a sentence, how many word pieces);
- spaCy's part of speech, entity and dependency;
- whether it is a first name somewhere (`memory.pool.first_names`) or a place (`memory.places`);
- what the rules found in it, and whether they took it out or kept it as part of the task;

and the same (MiniLM aside) of the words beside it and of the word it depends on. A word
likely a person's goes, and wherever else the texts say it, as a name does. A detail the rules
found stays only when every word of it is likely the task's and very unlikely a person's, and
never a contact or a name spaCy calls a person's. `python -m
benchmarks.sharing_eval.train_tagger` trains it on the helper-written scrub sets and says how
it does on each set left out of its training.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

TAGGER_FILE = Path(__file__).with_name("scrub_tagger.npz")
_POS = tuple("ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X"
             .split())
_ENTITIES = tuple("PERSON NORP FAC ORG GPE LOC PRODUCT EVENT WORK_OF_ART LAW LANGUAGE DATE TIME "
                  "PERCENT MONEY QUANTITY ORDINAL CARDINAL".split())
_DEPENDENCIES = tuple("nsubj nsubjpass dobj pobj amod compound nmod nummod poss appos conj ROOT "
                      "attr npadvmod advmod prep det dep acomp xcomp ccomp advcl relcl intj "
                      "punct cc aux".split())
# What the rules find (`memory.pool.scrub.PLACEHOLDERS`, and organisations).
_FOUND = ("PERSON", "LOCATION", "NRP", "DATE_TIME", "EMAIL_ADDRESS", "PHONE_NUMBER", "URL",
          "PROPER_NOUN", "HANDLE", "NUMBER", "ORGANIZATION")


class WordStates(Protocol):
    """What a model makes of each word of a text in context
    (`memory.embeddings.token_states.WordStates`)."""

    name: str

    def of_spans(self, text: str, spans: Sequence[tuple[int, int]]
                 ) -> tuple[np.ndarray, list[int]]: ...


@dataclass(frozen=True, slots=True)
class Found:
    """A detail the rules found: taken out (`personal`) or kept as part of the task."""

    entity_type: str
    start: int
    end: int
    personal: bool
    score: float = 1.0  # how sure the recognizer was (the placeholder of the surest is used)


@dataclass(frozen=True)
class TaggerWeights:
    """A few networks of one hidden layer (ReLU) and a softmax over what a word is: `PERSONAL`
    (a person's detail), `TASK` (part of what is asked for) or anything else. They differ only
    in the seed they were trained from, and their chances are averaged: one network alone
    changes its mind on a word from one seed to the next."""

    hidden: np.ndarray  # (networks, features, units)
    hidden_bias: np.ndarray  # (networks, units)
    out: np.ndarray  # (networks, units, classes)
    out_bias: np.ndarray  # (networks, classes)
    classes: tuple[str, ...]
    take_out: float  # from this chance of a person's, a word goes
    keep: float  # from this chance of the task's, a detail the rules found may stay...
    keep_below: float  # ...when its chance of a person's is under this
    embedder: str  # whose word states it was trained on

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(words, classes): the networks' mean."""
        hidden = np.maximum(features[None] @ self.hidden + self.hidden_bias[:, None, :], 0.0)
        logits = hidden @ self.out + self.out_bias[:, None, :]
        odds = np.exp(logits - logits.max(axis=2, keepdims=True))
        return np.asarray((odds / odds.sum(axis=2, keepdims=True)).mean(axis=0))

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez_compressed(buffer, hidden=self.hidden, hidden_bias=self.hidden_bias,
                            out=self.out, out_bias=self.out_bias, classes=np.array(self.classes),
                            take_out=np.array(self.take_out), keep=np.array(self.keep),
                            keep_below=np.array(self.keep_below),
                            embedder=np.array(self.embedder))
        return buffer.getvalue()

    @classmethod
    def from_file(cls, path: Path = TAGGER_FILE) -> TaggerWeights:
        with np.load(path, allow_pickle=False) as saved:
            return cls(saved["hidden"], saved["hidden_bias"], saved["out"], saved["out_bias"],
                       tuple(str(c) for c in saved["classes"]), float(saved["take_out"]),
                       float(saved["keep"]), float(saved["keep_below"]), str(saved["embedder"]))


PERSONAL, TASK, OTHER_WORD = "personal", "task", "other"
# Contacts say who someone is whatever the sentence, and a name spaCy calls a person's is too
# often someone's ("my parrot Churchill"): never kept.
_NEVER_KEPT = frozenset({"EMAIL_ADDRESS", "PHONE_NUMBER", "URL", "IP_ADDRESS", "HANDLE",
                         "PERSON"})


@dataclass(frozen=True, slots=True)
class Look:
    take_out: list[tuple[int, int]]  # character spans of the words likely a person's
    keep: list[Found]  # details the rules would take out that are part of the task


class WordLook:
    """Looks at the words of a parsed text the rules have been through; not for concurrent
    calls (the scrubber makes one at a time)."""

    def __init__(self, weights: TaggerWeights, states: WordStates,
                 first_names: frozenset[str], places: frozenset[str]) -> None:
        if weights.embedder != states.name:
            raise ValueError(f"the tagger reads {weights.embedder}'s states, not {states.name}'s")
        self._weights = weights
        self._features = WordFeatures(states, first_names, places)

    def look(self, doc: Any, found: Sequence[Found]) -> Look:
        """The words of `doc` (spaCy's) likely a person's, whatever the rules `found`, and the
        details the rules found whose every word is likely the task's and very unlikely a
        person's."""
        if not len(doc):
            return Look([], [])
        weights = self._weights
        chances = weights.probabilities(self._features.of(doc, found))
        personal = chances[:, weights.classes.index(PERSONAL)]
        task = chances[:, weights.classes.index(TASK)]
        take_out = [(t.idx, t.idx + len(t.text)) for t in doc
                    if personal[t.i] >= weights.take_out]
        keep = []
        for detail in found:
            if not detail.personal or detail.entity_type in _NEVER_KEPT:
                continue
            words = [t.i for t in doc if t.idx < detail.end and detail.start < t.idx + len(t.text)]
            if words and all(task[i] >= weights.keep and personal[i] < weights.keep_below
                             for i in words):
                keep.append(detail)
        return Look(take_out, keep)


class WordFeatures:
    """What the networks read of each word (the module's docstring says what)."""

    def __init__(self, states: WordStates, first_names: frozenset[str],
                 places: frozenset[str]) -> None:
        self._states = states
        self._first_names = first_names
        self._places = places

    def of(self, doc: Any, found: Sequence[Found]) -> np.ndarray:
        """A row for each token of `doc`."""
        states, pieces = self._states.of_spans(
            doc.text, [(t.idx, t.idx + len(t.text)) for t in doc])
        own = np.array([self._own(t, found, n) for t, n in zip(doc, pieces, strict=True)])
        empty = np.zeros(own.shape[1], dtype=np.float32)
        rows = []
        for t in doc:
            before = own[t.i - 1] if t.i > 0 else empty
            after = own[t.i + 1] if t.i + 1 < len(doc) else empty
            head = own[t.head.i] if t.head.i != t.i else empty
            rows.append(np.concatenate([own[t.i], before, after, head, states[t.i]]))
        return np.array(rows, dtype=np.float32)

    def _own(self, token: Any, found: Sequence[Found], pieces: int) -> np.ndarray:
        start, end = token.idx, token.idx + len(token.text)
        inside = [f for f in found if f.start < end and start < f.end]
        taken = {f.entity_type for f in inside if f.personal}
        kept = {f.entity_type for f in inside if not f.personal}
        text = token.text
        shape = [token.is_title, token.is_upper, token.is_lower, token.is_alpha,
                 any(c.isdigit() for c in text), token.is_stop, bool(token.is_sent_start),
                 "@" in text, len(text) > 6, token.ent_iob_ == "B", token.ent_iob_ == "I",
                 bool(taken), bool(kept), text[:1].isupper() and not token.is_sent_start,
                 token.lower_ in self._first_names, token.lower_ in self._places,
                 pieces == 1, pieces >= 3]
        return np.concatenate([
            np.array(shape, dtype=np.float32), _one_hot(token.pos_, _POS),
            _one_hot(token.ent_type_, _ENTITIES), _one_hot(token.dep_, _DEPENDENCIES),
            np.array([kind in taken for kind in _FOUND], dtype=np.float32),
            np.array([kind in kept for kind in _FOUND], dtype=np.float32)])


def _one_hot(value: str, vocabulary: tuple[str, ...]) -> np.ndarray:
    """One column for each value known, and one for any other (or none)."""
    row = np.zeros(len(vocabulary) + 1, dtype=np.float32)
    row[vocabulary.index(value) if value in vocabulary else len(vocabulary)] = 1.0
    return row
