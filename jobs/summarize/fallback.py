"""`auto` summarizing: a capable model first, the user's own words when its answer won't do."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from jobs.summarize.drafts import (
    FactDraft,
    NothingUsable,
    Summarizer,
    TopicDraft,
    Voices,
    WindowDrafts,
)
from memory.errors import ModelUnavailable
from memory.types import Round

log = logging.getLogger(__name__)


class FallbackSummarizer:
    """`Summarizer` that uses `primary` and, for a window it cannot do, `fallback`."""

    def __init__(self, primary: Summarizer, fallback: Summarizer) -> None:
        self._primary = primary
        self._fallback = fallback

    async def summarize(self, rounds: Sequence[Round], voices: Voices) -> list[TopicDraft]:
        try:
            return await self._primary.summarize(rounds, voices)
        except (NothingUsable, ModelUnavailable) as error:
            log.info("Summarizing without the model for this window: %s", error)
            return await self._fallback.summarize(rounds, voices)

    async def window(self, rounds: Sequence[Round], voices: Voices) -> WindowDrafts:
        """The primary's topics and facts; where its answer holds no topic, the fallback's
        topics and the facts as `facts` finds them."""
        try:
            return await self._primary.window(rounds, voices)
        except (NothingUsable, ModelUnavailable) as error:
            log.info("Summarizing without the model for this window: %s", error)
            return WindowDrafts(await self._fallback.summarize(rounds, voices),
                                await self.facts(rounds, voices))

    async def facts(self, rounds: Sequence[Round], voices: Voices) -> list[FactDraft]:
        try:
            return await self._primary.facts(rounds, voices)
        except (NothingUsable, ModelUnavailable) as error:
            log.info("Finding facts without the model for this window: %s", error)
            return await self._fallback.facts(rounds, voices)

    async def merge_many(self, topics: Sequence[tuple[str, Sequence[str]]], voices: Voices
                         ) -> list[str | None]:
        """The primary's merges; those it could not do are left to `merge`, one by one."""
        try:
            return await self._primary.merge_many(topics, voices)
        except (NothingUsable, ModelUnavailable) as error:
            log.info("Merging %d labels one by one: %s", len(topics), error)
            return [None] * len(topics)

    async def merge(self, label: str, descriptions: Sequence[str], voices: Voices) -> str:
        try:
            return await self._primary.merge(label, descriptions, voices)
        except (NothingUsable, ModelUnavailable) as error:
            log.info("Merging without the model for '%s': %s", label, error)
            return await self._fallback.merge(label, descriptions, voices)
