"""Setting `[vector] url` switches to chroma's server mode with nothing else changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app.stores import Stores
from bot.settings import Settings
from memory.index.chroma import SYNC_THRESHOLD, ChromaIndex, VectorsMustBePassed, open_client
from tests.conftest import make_settings, search_topics


@pytest.fixture
def store_settings(tmp_path: Path, sql_url: str, chroma_url: str) -> Settings:
    """The stores' settings, with the vectors on the session's chroma server."""
    return make_settings(tmp_path, None, sql_url, vector={"url": chroma_url})


async def test_topics_live_on_the_chroma_server(stores: Stores, tmp_path: Path) -> None:
    await stores.topics.add_topic("ana", "hobbies", "The host plays table tennis every week.")
    await stores.topics.add_topic("ben", "hobbies", "The host plays the drums in a band.")
    found = await search_topics(stores, "ana", "Which sport do I play?")
    assert [s.topic.description for s in found] == ["The host plays table tennis every week."]
    assert await stores.topics.forget("ana") == 1
    assert await search_topics(stores, "ana", "Which sport do I play?") == []
    assert len(await search_topics(stores, "ben", "drums")) == 1
    assert not (tmp_path / "data" / "chroma").exists()  # nothing was embedded locally


async def test_reading_a_users_vectors_creates_no_collection(
    stores: Stores, chroma_url: str, tmp_path: Path
) -> None:
    client = open_client(chroma_url, tmp_path)
    before = client.count_collections()
    assert await search_topics(stores, "newcomer", "What do I do on Sundays?") == []
    assert await stores.facts.by_meaning("newcomer", _UNIT, 5, taught=True) == []
    assert client.count_collections() == before  # a server holds no empty ones per user


async def test_a_process_writes_again_after_another_dropped_the_users_vectors(
    chroma_url: str, tmp_path: Path
) -> None:
    first, second = (ChromaIndex(open_client(chroma_url, tmp_path), "two-processes")
                     for _ in range(2))
    await first.upsert("ana", ["a"], [_UNIT], ["I play chess"], [{}])
    assert [hit.id for hit in await second.query("ana", _UNIT, 3)] == ["a"]
    await second.delete("ana")  # /forget all, served by the other process

    assert await first.query("ana", _UNIT, 3) == []
    await first.upsert("ana", ["b"], [_UNIT], ["I play go"], [{}])
    assert [hit.id for hit in await second.query("ana", _UNIT, 3)] == ["b"]


async def test_a_users_collection_keeps_its_graph_on_disk_every_few_records(
    chroma_url: str, tmp_path: Path
) -> None:
    """A collection's graph not yet written is rebuilt from chromadb's log whenever a server
    loads the collection again; one made before the setting gets it at its next write."""
    client = open_client(chroma_url, tmp_path)
    index = ChromaIndex(client, "sync")
    await index.upsert("ana", ["a"], [_UNIT], ["I play chess"], [{}])
    older = client.create_collection(
        index.collection_name("ben"), configuration={"hnsw": {"space": "cosine"}},
        embedding_function=VectorsMustBePassed())  # type: ignore[arg-type]
    assert older.configuration["hnsw"]["sync_threshold"] == 1000  # type: ignore[index]
    await index.upsert("ben", ["b"], [_UNIT], ["I play go"], [{}])
    for user in ("ana", "ben"):
        stored = client.get_collection(index.collection_name(user),
                                       embedding_function=VectorsMustBePassed())  # type: ignore[arg-type]
        assert stored.configuration["hnsw"]["sync_threshold"] == SYNC_THRESHOLD, user  # type: ignore[index]
    assert [hit.id for hit in await index.query("ben", _UNIT, 3)] == ["b"]


_UNIT = [1.0] + [0.0] * 383
