"""An in-process model that embeds for many callers at once: one thread runs it, requests that
arrive while it works go together into its next run, short ones (a person's message) first, and
texts embedded lately are remembered (as float32, what the model gives).

Under load this is what keeps a turn fast: concurrent calls into onnxruntime from several
threads each take every core and starve the event loop, while one thread takes them in turn. A
fact is embedded when it is indexed and again moments later when
its belief is checked: the second time comes from the cache.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from memory.protocols import Vector

MAX_TEXTS = 32  # per run of the model; a longer request is split, so a message never waits long
SHORT = 2  # requests of at most this many texts go first
CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class _Request:
    texts: list[str]
    future: asyncio.Future[list[Vector]]


class BatchedEmbedding:
    def __init__(self, embed_blocking: Callable[[list[str]], list[Vector]], *,
                 max_texts: int = MAX_TEXTS, cache_size: int = CACHE_SIZE) -> None:
        self._embed_blocking = embed_blocking
        self._max_texts = max_texts
        self._cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedding")
        self._waiting: deque[_Request] = deque()
        self._draining: asyncio.Task[None] | None = None

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        remembered = {text: self._cache[text] for text in texts if text in self._cache}
        for text in remembered:
            self._cache.move_to_end(text)
        missing = list(dict.fromkeys(text for text in texts if text not in remembered))
        chunks = [missing[i:i + self._max_texts] for i in range(0, len(missing), self._max_texts)]
        found = {text: vector.tolist() for text, vector in remembered.items()}
        for chunk, vectors in zip(chunks, await asyncio.gather(*map(self._submit, chunks)),
                                  strict=True):
            found.update(zip(chunk, vectors, strict=True))
            self._remember(chunk, vectors)
        return [found[text] for text in texts]

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _submit(self, texts: list[str]) -> asyncio.Future[list[Vector]]:
        loop = asyncio.get_running_loop()
        request = _Request(texts, loop.create_future())
        self._waiting.append(request)
        if self._draining is None or self._draining.done() or self._draining.get_loop() is not loop:
            self._draining = loop.create_task(self._drain())
        return request.future

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting:
            batch = self._next_batch()
            texts = [text for request in batch for text in request.texts]
            try:
                vectors = await loop.run_in_executor(self._executor, self._embed_blocking, texts)
            except Exception as error:  # each caller gets the model's error
                for request in batch:
                    if not request.future.done():
                        request.future.set_exception(error)
                continue
            start = 0
            for request in batch:
                if not request.future.done():  # its caller may have given up
                    request.future.set_result(vectors[start:start + len(request.texts)])
                start += len(request.texts)

    def _next_batch(self) -> list[_Request]:
        """Short requests first, then the oldest, up to `max_texts` texts."""
        ordered = sorted(self._waiting, key=lambda r: len(r.texts) > SHORT)  # stable: oldest first
        batch: list[_Request] = []
        count = 0
        for request in ordered:
            if batch and count + len(request.texts) > self._max_texts:
                break
            batch.append(request)
            count += len(request.texts)
        for request in batch:
            self._waiting.remove(request)
        return batch

    def _remember(self, texts: list[str], vectors: list[Vector]) -> None:
        for text, vector in zip(texts, vectors, strict=True):
            # As float32, what the model gave: a list of 384 Python floats takes 8 times more.
            self._cache[text] = np.asarray(vector, dtype=np.float32)
            self._cache.move_to_end(text)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
