"""Setting `[vector] url` switches to chroma's server mode with nothing else changed."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from bot.app import open_companion
from memory.index.chroma import open_client
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


async def test_switching_embedders_on_a_chroma_server_reindexes_every_topic(
    chroma_url: str, tmp_path: Path, llm: ScriptedLLM
) -> None:
    vector = {"url": chroma_url, "collection": f"switch{uuid.uuid4().hex[:8]}"}
    minilm = make_settings(tmp_path, llm, vector=vector)
    endpoint = make_settings(tmp_path, llm, vector=vector, embeddings={
        "provider": "openai", "base_url": llm.base_url, "model": "fake-embed"})
    async with open_companion(minilm) as companion:
        for user in ("ana", "ben"):
            await companion.add_topic(user, "hobbies", f"{user} plays table tennis every week.")
    async with open_companion(endpoint) as companion:
        [found] = await companion.search_topics("ana", "ana plays table tennis every week.")
        assert found.score > 0.99  # the endpoint's vectors, built from SQL at start
    client = await asyncio.to_thread(open_client, chroma_url, tmp_path)
    left = {c.name.rsplit("-", 1)[0] for c in client.list_collections()
            if c.name.startswith(vector["collection"])}
    assert left == {f"{vector['collection']}-openai-fake-embed",
                    f"{vector['collection']}-pool-openai-fake-embed"}  # MiniLM's were dropped
