"""Setting `[vector] url` switches to chroma's server mode with nothing else changed."""

from __future__ import annotations

from pathlib import Path

from bot.app import open_companion
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM


async def test_topics_live_on_the_chroma_server(
    chroma_url: str, tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm, vector={"url": chroma_url})
    async with open_companion(settings) as companion:
        await companion.add_topic("ana", "hobbies", "The host plays table tennis every week.")
        await companion.add_topic("ben", "hobbies", "The host plays the drums in a band.")
        found = await companion.search_topics("ana", "Which sport do I play?")
        assert [s.topic.description for s in found] == ["The host plays table tennis every week."]
        assert await companion.topics.forget("ana") == 1
        assert await companion.search_topics("ana", "Which sport do I play?") == []
        assert len(await companion.search_topics("ben", "drums")) == 1
    assert not (tmp_path / "data" / "chroma").exists()  # nothing was embedded locally
