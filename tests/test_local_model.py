"""The bundled demo model in-process on llama.cpp: streaming off the event loop, stopping early."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path

import pytest

from bot.errors import ModelUnavailable
from bot.llm.base import CUT_SHORT
from bot.llm.local_llama import LocalLlama
from memory.embeddings.packaged import smollm2_model_file

pytestmark = pytest.mark.real_model
MESSAGES = [{"role": "user", "content": "Tell me a long story about a cat."}]


def _model(path: Path | None = None) -> LocalLlama:
    return LocalLlama(path or smollm2_model_file(), context_tokens=2048, threads=2,
                      temperature=0.7, max_tokens=60)


async def test_streams_pieces_while_the_event_loop_stays_free() -> None:
    model = _model()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    beat = asyncio.create_task(ticker())
    pieces = [piece async for piece in model.stream(MESSAGES)]  # type: ignore[arg-type]
    beat.cancel()
    await model.aclose()
    assert len(pieces) > 3 and "".join(pieces).strip()
    assert ticks > 5  # the loop kept running while llama.cpp worked in its thread


async def test_stopping_early_frees_the_model_for_the_next_reply() -> None:
    model = _model()
    async with aclosing(model.stream(MESSAGES)) as stream:  # type: ignore[arg-type]
        first = await anext(stream)
    assert first
    again = [piece async for piece in model.stream(MESSAGES)]  # type: ignore[arg-type]
    await model.aclose()
    assert again


async def test_a_file_that_is_not_a_model_is_reported(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file at all")
    with pytest.raises(ModelUnavailable, match="could not be loaded"):
        async for _ in _model(broken).stream(MESSAGES):  # type: ignore[arg-type]
            pass


async def test_a_reply_cut_by_the_token_limit_ends_visibly() -> None:
    model = LocalLlama(smollm2_model_file(), context_tokens=2048, threads=2, temperature=0.7,
                       max_tokens=8)
    pieces = [piece async for piece in model.stream(MESSAGES)]  # type: ignore[arg-type]
    await model.aclose()
    assert pieces[-1] == CUT_SHORT and len(pieces) > 2  # a long story never fits in 8 tokens
