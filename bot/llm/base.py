"""The chat model contract."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from typing import Literal, Protocol, TypedDict

from bot.errors import ModelUnavailable


class ChatMessage(TypedDict):
    role: Literal["system", "user", "assistant"]
    content: str


# The last piece of a reply the model stopped because it reached its token limit: the reader
# sees that it was cut ("I went swimm…"), not a reply that ends mid-word for no reason.
CUT_SHORT = "…"


class ChatModel(Protocol):
    """Streams a reply to a list of messages.

    Yields text pieces as they are generated, and `CUT_SHORT` last when the token limit cut
    the reply. Raises `ModelUnavailable` (with a message fit for
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
