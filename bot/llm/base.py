"""The chat model contract."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from typing import Literal, Protocol, TypedDict

from bot.errors import ModelUnavailable


class ChatMessage(TypedDict):
    role: Literal["system", "user", "assistant"]
    content: str


class ChatModel(Protocol):
    """Streams a reply to a list of messages.

    Yields text pieces as they are generated. Raises `ModelUnavailable` (with a message fit for
    the user) when the model cannot be reached or fails, possibly after some pieces.
    """

    name: str

    def stream(self, messages: Sequence[ChatMessage]) -> AsyncGenerator[str, None]: ...

    async def aclose(self) -> None: ...


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
