"""Short questions put to the chat model by the memory jobs and the dialogue core, whose answers
are read rather than shown."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import aclosing

from memory.errors import ModelUnavailable
from memory.protocols import ChatMessage, ChatModel


async def complete(model: ChatModel, messages: Sequence[ChatMessage], *,
                   timeout_seconds: float, what: str) -> str:
    """The whole reply, for the background jobs that read it rather than show it; one that
    takes longer than `timeout_seconds` raises `ModelUnavailable` ("did not <what> within")."""
    try:
        async with asyncio.timeout(timeout_seconds):
            return "".join([piece async for piece in model.stream(messages)])
    except TimeoutError:
        raise ModelUnavailable(f"The model did not {what} within {timeout_seconds:g} s."
                               ) from None


async def model_says_yes(model: ChatModel, prompt: str) -> bool:
    """Put a yes/no question to the model; only the start of its answer is read."""
    return (await model_answer(model, prompt, 20)).lower().startswith("yes")


async def model_answer(model: ChatModel, prompt: str, enough: int = 200) -> str:
    """Put a short question to the model; its answer is read up to `enough` characters."""
    messages: list[ChatMessage] = [{"role": "user", "content": prompt}]
    answer = ""
    async with aclosing(model.stream(messages)) as pieces:
        async for piece in pieces:
            answer += piece
            if len(answer) > enough:
                break
    return answer.strip()
