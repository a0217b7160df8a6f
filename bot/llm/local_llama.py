"""The packaged demo model (SmolLM2-135M-Instruct, GGUF) on llama.cpp, in-process.

llama.cpp blocks, so loading and generation run in a worker thread that hands pieces to the
event loop through a queue. One generation runs at a time: a llama context is not thread-safe.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Iterator, Sequence
from contextlib import aclosing, closing
from pathlib import Path
from typing import Any

from bot.errors import ModelUnavailable
from bot.llm.base import CUT_SHORT, ChatMessage

_DONE = object()


class LocalLlama:
    """`ChatModel` on llama-cpp-python. The model loads on first use (about 0.3 s)."""

    def __init__(
        self,
        model_file: Path,
        *,
        context_tokens: int,
        threads: int,
        temperature: float,
        max_tokens: int,
    ) -> None:
        self._model_file = model_file
        self._context_tokens = context_tokens
        self._threads = threads or None
        # Tiny models echo the prompt at temperature 0: keep some randomness.
        self._temperature = max(temperature, 0.2)
        self._max_tokens = max_tokens
        self._llama: Any = None
        self._lock = asyncio.Lock()
        self.name = model_file.stem

    async def stream(self, messages: Sequence[ChatMessage]) -> AsyncGenerator[str, None]:
        async with self._lock:
            if self._llama is None:
                self._llama = await asyncio.to_thread(self._load)
            # aclosing: the generation must stop before the lock is released, not when the
            # garbage collector gets to it; two generations on one llama context abort.
            async with aclosing(self._generate(list(messages))) as pieces:
                async for piece in pieces:
                    yield piece

    def _load(self) -> Any:
        try:
            from llama_cpp import Llama  # imported on first use: it loads a native library
        except ImportError as error:
            raise ModelUnavailable(
                "The offline model needs llama-cpp-python (run: bash .ci/setup)."
            ) from error
        if not self._model_file.is_file():
            raise ModelUnavailable(f"The offline model file is missing: {self._model_file}")
        try:
            return Llama(
                model_path=str(self._model_file),
                n_ctx=self._context_tokens,
                n_threads=self._threads,
                verbose=False,
            )
        except (ValueError, RuntimeError) as error:  # not a GGUF file, or one llama.cpp rejects
            raise ModelUnavailable(
                f"The offline model {self._model_file.name} could not be loaded: {error}"
            ) from error

    async def _generate(self, messages: list[ChatMessage]) -> AsyncGenerator[str, None]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()

        def produce() -> None:
            try:
                # closing(): a generation stopped early is closed here, in this thread, before
                # the lock is released; a half-run one left to the garbage collector aborts
                # llama.cpp when the next generation starts.
                with closing(self._pieces(messages)) as pieces:
                    for piece in pieces:
                        if stop.is_set():
                            break
                        loop.call_soon_threadsafe(queue.put_nowait, piece)
            except Exception as error:  # handed to the event loop, raised there
                loop.call_soon_threadsafe(queue.put_nowait, error)
            finally:
                loop.call_soon_threadsafe(queue.put_nowait, _DONE)

        worker = asyncio.ensure_future(asyncio.to_thread(produce))
        try:
            while (item := await queue.get()) is not _DONE:
                if isinstance(item, Exception):
                    raise ModelUnavailable(f"The offline model failed: {item}") from item
                yield item
        finally:
            stop.set()  # the consumer left early: let the thread finish its current token
            await worker

    def _pieces(self, messages: list[ChatMessage]) -> Iterator[str]:
        chunks = self._llama.create_chat_completion(
            messages=messages,
            stream=True,
            temperature=self._temperature,
            max_tokens=self._max_tokens,
            repeat_penalty=1.15,
        )
        with closing(chunks):
            for chunk in chunks:
                choice = chunk["choices"][0]
                if piece := choice["delta"].get("content"):
                    yield piece
                if choice.get("finish_reason") == "length":
                    yield CUT_SHORT

    async def aclose(self) -> None:
        async with self._lock:
            if self._llama is not None:
                await asyncio.to_thread(self._llama.close)
                self._llama = None
