"""The contracts between the dialogue core, the memory jobs and their backends: the chat model,
the embedder, and the stores that have more than one implementation or are faked in tests."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from datetime import datetime
from typing import Literal, Protocol, TypedDict

from memory.types import Round, ScoredTopic, Topic

Vector = list[float]


class ChatMessage(TypedDict):
    role: Literal["system", "user", "assistant"]
    content: str


# The last piece of a reply the model stopped because it reached its token limit: the reader
# sees that it was cut ("I went swimm…"), not a reply that ends mid-word for no reason.
CUT_SHORT = "…"


class ChatModel(Protocol):
    """Streams a reply to a list of messages.

    Yields text pieces as they are generated, and `CUT_SHORT` last when the token limit cut
    the reply. Raises `ModelUnavailable` (with a message fit for the user) when the model
    cannot be reached or fails, possibly after some pieces.
    """

    name: str

    def stream(self, messages: Sequence[ChatMessage]) -> AsyncGenerator[str, None]: ...

    async def aclose(self) -> None: ...


class Embedder(Protocol):
    """Turns texts into vectors.

    Vectors are L2-normalized, so a dot product is the cosine similarity. The same text always
    gives the same vector. Never blocks the event loop. `name` identifies the vector space:
    vectors of different names are never compared.
    """

    name: str

    async def embed(self, texts: Sequence[str]) -> list[Vector]: ...

    def readable(self, text: str) -> float:
        """The share of `text` the model represents (1.0: all of it). Below a threshold, its
        vector cannot tell the text from others and no memory is chosen by it. Cheap enough
        for the event loop."""
        ...

    async def aclose(self) -> None: ...


class RoundStore(Protocol):
    """Raw rounds in SQL. Every read is filtered by user; no result holds another user's round."""

    async def start_round(
        self, *, user_id: str, conversation_id: str, persona: str, text: str
    ) -> Round:
        """Commit the user's message before anything else happens, and return the new round."""
        ...

    async def finish_round(self, round_: Round, reply: str, cited: Sequence[str] = (),
                           used: str | None = None) -> int:
        """Store the reply of a round `start_round` returned, with the keys of the memories it
        cited (`memory_key`) and the record of what it was given (`used`, see
        memory.provenance); returns how many of the user's rounds now wait to be summarized."""
        ...

    async def fail_round(self, round_: Round, partial_reply: str | None,
                         used: str | None = None) -> int:
        """Store the failure (the message stays); returns the rounds waiting, as above."""
        ...

    async def recent_rounds(
        self, user_id: str, limit: int, *, before_id: int | None = None,
        conversation_id: str | None = None,
    ) -> list[Round]:
        """The user's last `limit` rounds (before `before_id`, in `conversation_id`, if
        given), oldest first."""
        ...

    async def get_round(self, user_id: str, round_id: int) -> Round | None:
        """One of the user's rounds (None when it is not theirs, or gone)."""
        ...

    async def count_rounds(self, user_id: str) -> int: ...

    async def forget_rounds(self, user_id: str) -> int:
        """Delete every round of the user; returns how many were deleted."""
        ...


class ProfileStore(Protocol):
    """Per-user preferences that outlive a session, such as the chosen persona."""

    async def persona_of(self, user_id: str) -> str | None: ...

    async def set_persona(self, user_id: str, persona: str) -> None: ...


class TopicStore(Protocol):
    """Topic descriptions with their vectors.

    Scores are cosine similarity, higher is closer. Every query filters on the user as a hard
    filter: results never include another user's topics.
    """

    async def add_topic(
        self, user_id: str, label: str, description: str, *, at: datetime | None = None
    ) -> Topic: ...

    async def search(
        self, user_id: str, vector: Vector, *, limit: int, floor: float
    ) -> list[ScoredTopic]:
        """The user's `limit` topics most similar to `vector` whose score is at least `floor`."""
        ...

    async def latest(self, user_id: str, limit: int) -> list[Topic]:
        """The user's most recently created or updated topics, newest first."""
        ...

    async def list_topics(self, user_id: str) -> list[Topic]:
        """All of the user's topics, oldest first."""
        ...

    async def count(self, user_id: str) -> int: ...

    async def forget(self, user_id: str, topic_id: str | None = None) -> int:
        """Delete one topic of the user (or all when `topic_id` is None); returns how many."""
        ...
