"""Abstractive summaries and merges by a capable chat model (Tables II and III)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from jobs.summarize.drafts import FactDraft, NothingUsable, TopicDraft, Voices
from jobs.summarize.fact_parsing import parse_facts
from jobs.summarize.parsing import parse_merged, parse_topics
from jobs.summarize.prompts import facts_prompt, merge_prompt, summary_prompt
from memory.protocols import ChatMessage, ChatModel
from memory.types import Round


class LLMSummarizer:
    """`Summarizer` that asks the model and keeps only what the parser can ground."""

    def __init__(self, model: ChatModel) -> None:
        self._model = model

    async def summarize(self, rounds: Sequence[Round], voices: Voices) -> list[TopicDraft]:
        output = await self._ask(summary_prompt(rounds, voices))
        drafts = await asyncio.to_thread(parse_topics, output, _said(rounds))
        if not drafts:
            raise NothingUsable(f"no grounded topic in the model's answer: {output[:200]!r}")
        return drafts

    async def facts(self, rounds: Sequence[Round], voices: Voices) -> list[FactDraft]:
        output = await self._ask(facts_prompt(rounds, voices))
        return await asyncio.to_thread(parse_facts, output, rounds, voices)

    async def merge(self, label: str, descriptions: Sequence[str], voices: Voices) -> str:
        output = await self._ask(merge_prompt(descriptions, voices))
        merged = await asyncio.to_thread(parse_merged, output, "\n".join(descriptions))
        if merged is None:
            raise NothingUsable(f"no grounded merge in the model's answer: {output[:200]!r}")
        return merged

    async def _ask(self, prompt: str) -> str:
        messages: list[ChatMessage] = [{"role": "user", "content": prompt}]
        return "".join([piece async for piece in self._model.stream(messages)])


def _said(rounds: Sequence[Round]) -> str:
    """Only the user's words: a topic may not put the companion's words in their mouth."""
    return "\n".join(r.user_text for r in rounds)
