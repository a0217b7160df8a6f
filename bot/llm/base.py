"""The chat model contract."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Literal, Protocol, TypedDict


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
