"""Switching the embedding model: every memory is indexed again with the new model, nothing is
lost, and what was forgotten under one model does not come back under another. A whole
companion (its memories made by chatting, the indexes rebuilt as it opens), on real SQL (SQLite
and MariaDB), real chromadb (embedded and a chroma server), MiniLM and the scripted server's
embeddings endpoint."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import chromadb

from bot.app import Companion, open_companion
from bot.settings import Settings
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.index.chroma import IndexNames
from tests.chatting import say
from tests.conftest import chroma_client, make_settings
from tests.fakes.openai_server import ScriptedLLM

SWIMMING = "Ana swims in the lake every morning before work"
GUITAR = "Ana is learning to play the guitar with her brother"
FAKE_EMBEDDER = "openai-fake-embed"


def _settings(tmp_path: Path, llm: ScriptedLLM, sql_url: str, **embeddings: Any) -> Settings:
    return make_settings(tmp_path, llm, sql_url, vector={"collection": "switch"},
                         embeddings=embeddings)


def _records(settings: Settings, embedder: str) -> dict[str, int]:
    """How many vectors each of a model's indexes holds, over all users."""
    client = chromadb.PersistentClient(str(settings.resolved_data_dir / "chroma"),
                                       settings=chromadb.Settings(anonymized_telemetry=False))
    names = IndexNames.of(settings.vector.collection, embedder)
    counts = dict.fromkeys(["topics", "facts", "taught", "pool", "feedback"], 0)
    for collection in client.list_collections():
        for kind in counts:
            prefix = getattr(names, kind)
            if collection.name.startswith(prefix + "-") and len(collection.name) == len(
                    prefix) + 33:
                counts[kind] += collection.count()
    return counts


async def _remember_things(companion: Companion, llm: ScriptedLLM) -> str:
    """Two topics, a taught fact and a correction of Ana's; returns the guitar topic's id."""
    await companion.topics.add_topic("ana", "swimming", SWIMMING)
    guitar = await companion.topics.add_topic("ana", "guitar", GUITAR)
    await companion.topics.add_topic("bo", "chess", "Bo plays chess in the park on Sundays")
    llm.enqueue("Lovely!")
    said, _ = await say(companion, "Remember that my sister's name is Lea")
    assert said.startswith("Noted, I'll remember")
    llm.enqueue("Good is a fine word.")
    await say(companion, "What word is similar to good?")
    said, _ = await say(companion, "/correct I meant a word with a similar meaning")
    assert said.startswith("Noted")
    return guitar.id


async def test_switching_embedders_indexes_every_memory_again_and_forgotten_ones_stay_gone(
    tmp_path: Path, llm: ScriptedLLM, sql_url: str
) -> None:
    minilm = _settings(tmp_path, llm, sql_url)
    fake = _settings(tmp_path, llm, sql_url, provider="openai", base_url=llm.base_url,
                     model="fake-embed")
    async with open_companion(minilm) as companion:
        guitar_id = await _remember_things(companion, llm)
    before = _records(minilm, OnnxMiniLM.name)
    assert before["topics"] == 3 and before["taught"] == 1 and before["feedback"] == 1

    async with open_companion(fake) as companion:
        # The fake model's vector of a text is a hash of it: only the same text is near.
        [found] = await companion.search_topics("ana", SWIMMING, limit=1)
        assert found.topic.description == SWIMMING and found.score > 0.99
        assert await companion.topics.forget("ana", guitar_id) == 1
    assert _records(fake, FAKE_EMBEDDER) == {**before, "topics": 2}
    assert _records(minilm, OnnxMiniLM.name) == dict.fromkeys(before, 0)  # dropped

    async with open_companion(minilm) as companion:
        hits = await companion.search_topics("ana", "my guitar lessons and my morning swim")
        assert [h.topic.description for h in hits] == [SWIMMING]  # the guitar was forgotten
        assert [h.topic.label for h in await companion.search_topics("bo", "a board game")] == [
            "chess"]
        llm.enqueue("Lea, of course.")
        await say(companion, "What is my sister's name?")
        assert "Lea" in llm.last_system_prompt
    assert _records(minilm, OnnxMiniLM.name) == {**before, "topics": 2}
    assert _records(fake, FAKE_EMBEDDER) == dict.fromkeys(before, 0)


async def test_opening_again_with_the_same_embedder_indexes_nothing_again(
    tmp_path: Path, llm: ScriptedLLM, sql_url: str, caplog: Any
) -> None:
    settings = _settings(tmp_path, llm, sql_url)
    async with open_companion(settings) as companion:
        await _remember_things(companion, llm)
    async with open_companion(settings):
        pass
    assert "embedding model changed" not in caplog.text
    assert _records(settings, OnnxMiniLM.name)["topics"] == 3


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
    client = await asyncio.to_thread(chroma_client, chroma_url)
    left = {c.name.rsplit("-", 1)[0] for c in client.list_collections()
            if c.name.startswith(vector["collection"])}
    assert left == {f"{vector['collection']}-openai-fake-embed",
                    f"{vector['collection']}-pool-openai-fake-embed"}  # MiniLM's were dropped
