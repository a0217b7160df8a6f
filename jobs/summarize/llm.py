"""Abstractive summaries and merges by a capable chat model (Tables II and III), with the
window's facts asked in the same call."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence

from jobs.summarize.drafts import FactDraft, NothingUsable, TopicDraft, Voices, WindowDrafts
from jobs.summarize.fact_parsing import parse_facts
from jobs.summarize.parsing import parse_merged, parse_merged_many, parse_topics
from jobs.summarize.prompts import (
    facts_prompt,
    merge_many_prompt,
    merge_prompt,
    summary_prompt,
    window_prompt,
)
from memory.protocols import ChatMessage, ChatModel
from memory.types import Round

log = logging.getLogger(__name__)
# The line that starts the facts in an answer to the window prompt ("Facts:", "**Facts**").
_FACTS_HEADER = re.compile(r"^[\W_]*facts[\W_]*$", re.IGNORECASE | re.MULTILINE)


class LLMSummarizer:
    """`Summarizer` that asks the model and keeps only what the parser can ground."""

    def __init__(self, model: ChatModel) -> None:
        self._model = model

    async def window(self, rounds: Sequence[Round], voices: Voices) -> WindowDrafts:
        """One call for the topics and the facts. An answer without its facts part, or with
        none the rounds bear out, costs a second call for the facts alone."""
        output = await self._ask(window_prompt(rounds, voices))
        topics_part, facts_part = split_facts(output)
        topics = await self._topics(topics_part, rounds)
        if facts_part is not None:
            try:
                facts = await asyncio.to_thread(parse_facts, facts_part, rounds, voices)
                return WindowDrafts(topics, facts)
            except NothingUsable as error:
                log.info("Asking for this window's facts alone: %s", error)
        return WindowDrafts(topics, await self.facts(rounds, voices))

    async def summarize(self, rounds: Sequence[Round], voices: Voices) -> list[TopicDraft]:
        return await self._topics(await self._ask(summary_prompt(rounds, voices)), rounds)

    async def facts(self, rounds: Sequence[Round], voices: Voices) -> list[FactDraft]:
        output = await self._ask(facts_prompt(rounds, voices))
        return await asyncio.to_thread(parse_facts, output, rounds, voices)

    async def merge(self, label: str, descriptions: Sequence[str], voices: Voices) -> str:
        output = await self._ask(merge_prompt(descriptions, voices))
        merged = await asyncio.to_thread(parse_merged, output, "\n".join(descriptions))
        if merged is None:
            raise NothingUsable(f"no grounded merge in the model's answer: {output[:200]!r}")
        return merged

    async def merge_many(self, topics: Sequence[tuple[str, Sequence[str]]], voices: Voices
                         ) -> list[str | None]:
        output = await self._ask(merge_many_prompt([d for _, d in topics], voices))
        return await asyncio.to_thread(
            parse_merged_many, output, ["\n".join(d) for _, d in topics])

    async def _topics(self, output: str, rounds: Sequence[Round]) -> list[TopicDraft]:
        drafts = await asyncio.to_thread(parse_topics, output, _said(rounds))
        if not drafts:
            raise NothingUsable(f"no grounded topic in the model's answer: {output[:200]!r}")
        return drafts

    async def _ask(self, prompt: str) -> str:
        messages: list[ChatMessage] = [{"role": "user", "content": prompt}]
        return "".join([piece async for piece in self._model.stream(messages)])


def split_facts(output: str) -> tuple[str, str | None]:
    """An answer to the window prompt: its topics part, and its facts part (None: no "Facts:"
    line, so no facts part)."""
    header = _FACTS_HEADER.search(output)
    if header is None:
        return output, None
    return output[:header.start()], output[header.end():]


def _said(rounds: Sequence[Round]) -> str:
    """Only the user's words: a topic may not put the companion's words in their mouth."""
    return "\n".join(r.user_text for r in rounds)
