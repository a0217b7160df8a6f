"""The packaged demo model (SmolLM2-135M-Instruct, GGUF) on llama.cpp, in-process.

llama.cpp blocks, so loading and generation run in a worker thread that hands pieces to the
event loop through a queue. One generation runs at a time: a llama context is not thread-safe.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncGenerator, Generator, Iterable, Iterator, Sequence
from contextlib import aclosing, closing
from pathlib import Path
from typing import Any

from bot.errors import ModelUnavailable
from memory.protocols import CUT_SHORT, ChatMessage

_DONE = object()
# The bundled demo model (SmolLM2-135M) replies in at most this many tokens, about three short
# sentences, cut at a whole sentence (benchmarks/demo_probe).
DEMO_MAX_TOKENS = 80
# The labels a small model writes when it goes on to write the next turn of a chat itself, or
# opens its reply with, as in a transcript ("A: Hi, I'm Ana.", "System: ...").
TURN_LABELS = ("User", "Host", "You", "Assistant", "Me", "A", "Q", "System")
# Where a sentence ends: ".", "!", "?" or "…" (and a closing quote or bracket) before a space.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'\u201d\u2019)\]]*(?=\s)")


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
        stop: Sequence[str] = (),
        repeat_penalty: float = 1.15,
        whole_sentences: bool = False,
        labels: Iterable[str] = (),
    ) -> None:
        """`stop`: texts that end the reply where they would start (not shown). `whole_sentences`:
        a reply the token limit cuts ends after its last whole sentence instead of with
        `CUT_SHORT` (which it still gets when it has no whole sentence). `labels`: speaker
        labels taken off the reply's start ("A:", "Mia:"); with `whole_sentences` only."""
        self._model_file = model_file
        self._context_tokens = context_tokens
        self._threads = threads or None
        # Tiny models echo the prompt at temperature 0: keep some randomness.
        self._temperature = max(temperature, 0.2)
        self._max_tokens = max_tokens
        self._stop = list(stop)
        self._repeat_penalty = repeat_penalty
        self._whole_sentences = whole_sentences
        self._opening_label = label_pattern(labels)
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

    def _pieces(self, messages: list[ChatMessage]) -> Generator[str, None, None]:
        chunks = self._llama.create_chat_completion(
            messages=messages,
            stream=True,
            temperature=self._temperature,
            max_tokens=self._max_tokens,
            repeat_penalty=self._repeat_penalty,
            stop=self._stop or None,
        )
        with closing(chunks):
            deltas = _deltas(chunks)
            if not self._whole_sentences:
                yield from _marked(deltas)
                return
            yield from without_opening_label(whole_sentences(deltas), self._opening_label)

    async def aclose(self) -> None:
        async with self._lock:
            if self._llama is not None:
                await asyncio.to_thread(self._llama.close)
                self._llama = None


def turn_stops(speakers: Iterable[str] = ()) -> list[str]:
    """Stop sequences for the start of another speaker's line ("\nUser:", "\nMia:", in three
    casings) and of a new chat message."""
    return ["<|im_start|>", *sorted(f"\n{form}:" for form in turn_labels(speakers))]


def turn_labels(speakers: Iterable[str] = ()) -> set[str]:
    """The speaker labels, in three casings, with the names of the chat's speakers."""
    labels = {*TURN_LABELS, *speakers}
    return {form for label in labels for form in (label, label.lower(), label.capitalize())}


def label_pattern(labels: Iterable[str]) -> re.Pattern[str] | None:
    names = sorted(labels, key=len, reverse=True)
    if not names:
        return None
    return re.compile(rf"^\s*(?:{'|'.join(map(re.escape, names))})\s*:\s*")


def without_opening_label(pieces: Iterable[str], label: re.Pattern[str] | None) -> Iterator[str]:
    """The pieces, the first without a speaker label it opens with ("A: Hi!" is "Hi!")."""
    first = True
    for piece in pieces:
        if first and label is not None and piece.strip():
            piece = label.sub("", piece, count=1)
            first = False
        if piece:
            yield piece


Piece = tuple[str, bool]  # a piece of text, and whether the token limit ended the reply there


def _deltas(chunks: Iterable[dict[str, Any]]) -> Iterator[Piece]:
    for chunk in chunks:
        choice = chunk["choices"][0]
        yield choice["delta"].get("content") or "", choice.get("finish_reason") == "length"


def _marked(deltas: Iterable[Piece]) -> Iterator[str]:
    """The pieces as they come, and `CUT_SHORT` when the token limit ended the reply."""
    for piece, cut in deltas:
        if piece:
            yield piece
        if cut:
            yield CUT_SHORT


def whole_sentences(deltas: Iterable[Piece]) -> Iterator[str]:
    """The pieces, each sentence once it is whole; a reply the token limit cut ends with its last
    whole sentence, or, when it has none, with what it has and `CUT_SHORT`."""
    held = ""  # the text after the last whole sentence given out
    gave = False
    for piece, cut in deltas:
        held += piece
        # At the cut nothing follows: a sentence that ends the text is whole too.
        if whole := _whole_part(held + " " if cut else held):
            yield whole
            held = held[len(whole):]
            gave = True
        if cut:
            if not gave:
                yield from (held, CUT_SHORT) if held else (CUT_SHORT,)
            return
    if held:
        yield held


def _whole_part(text: str) -> str:
    """`text` up to the end of its last whole sentence ("" when it has none)."""
    ends = [match.end() for match in _SENTENCE_END.finditer(text)]
    return text[:ends[-1]] if ends else ""
