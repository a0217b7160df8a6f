"""Setting `[vector] url` switches to chroma's server mode with nothing else changed. The
product speaks the server's HTTP API itself; chromadb's own client (`chroma_client`) is the
independent view of what it stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromadb.api.collection_configuration import create_collection_configuration_to_json

from bot.app.stores import Stores
from bot.errors import ConfigError
from bot.settings import Settings
from memory.errors import VectorStoreUnavailable
from memory.index.chroma import ChromaIndex
from memory.index.collections import HNSW, SYNC_THRESHOLD
from memory.index.embedded import VectorsMustBePassed
from memory.index.server import CONFIGURATION, ChromaServer
from tests.conftest import (
    _free_port,
    chroma_client,
    make_settings,
    opened_stores,
    search_topics,
)


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
    stores: Stores, chroma_url: str
) -> None:
    client = chroma_client(chroma_url)
    before = client.count_collections()
    assert await search_topics(stores, "newcomer", "What do I do on Sundays?") == []
    assert await stores.facts.by_meaning("newcomer", _UNIT, 5, taught=True) == []
    assert client.count_collections() == before  # a server holds no empty ones per user


async def test_a_process_writes_again_after_another_dropped_the_users_vectors(
    chroma_url: str,
) -> None:
    servers = [ChromaServer(chroma_url) for _ in range(2)]
    first, second = (ChromaIndex(server, "two-processes") for server in servers)
    await first.upsert("ana", ["a"], [_UNIT], ["I play chess"], [{}])
    assert [hit.id for hit in await second.query("ana", _UNIT, 3)] == ["a"]
    await second.delete("ana")  # /forget all, served by the other process

    assert await first.query("ana", _UNIT, 3) == []
    await first.upsert("ana", ["b"], [_UNIT], ["I play go"], [{}])
    assert [hit.id for hit in await second.query("ana", _UNIT, 3)] == ["b"]
    await second.delete("ana")
    await second.upsert("ana", ["c"], [_UNIT], ["I play bridge"], [{}])  # made again there
    assert [hit.id for hit in await first.query("ana", _UNIT, 3)] == ["c"]
    for server in servers:
        await server.close()


async def test_a_users_collection_keeps_its_graph_on_disk_every_few_records(
    chroma_url: str,
) -> None:
    """A collection's graph not yet written is rebuilt from chromadb's log whenever a server
    loads the collection again; one made before the setting gets it at its next write."""
    client = chroma_client(chroma_url)
    server = ChromaServer(chroma_url)
    index = ChromaIndex(server, "sync")
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
    assert client.get_collection(index.collection_name("ana")).metadata == {"user_id": "ana"}
    await server.close()


def test_collections_are_made_as_chromadb_would_make_them() -> None:
    """An embedded store or chromadb's own client opens what the product made on a server."""
    assert create_collection_configuration_to_json(
        {"hnsw": dict(HNSW), "embedding_function": VectorsMustBePassed()},  # type: ignore[typeddict-item]
        None) == CONFIGURATION


async def test_what_the_product_stores_reads_back_through_chromadbs_client(
    chroma_url: str,
) -> None:
    server = ChromaServer(chroma_url)
    index = ChromaIndex(server, "readback")
    other = [0.0, 1.0] + [0.0] * 382
    await index.upsert("ana", ["a", "b"], [_UNIT, other], ["I play chess", "I sing"],
                       [{"kind": "hobby"}, {"kind": "voice"}])
    stored = chroma_client(chroma_url).get_collection(
        index.collection_name("ana"), embedding_function=VectorsMustBePassed())  # type: ignore[arg-type]
    got = stored.get(ids=["b"], include=["documents", "metadatas", "embeddings"])
    assert got["documents"] == ["I sing"]
    assert got["metadatas"] == [{"kind": "voice", "user_id": "ana"}]
    assert list(got["embeddings"][0][:2]) == [0.0, 1.0]  # type: ignore[index]
    [hit] = await index.query("ana", other, 1)
    assert (hit.id, hit.document, round(hit.score, 3)) == ("b", "I sing", 1.0)
    vectors = await index.vectors("ana")
    assert sorted(vectors) == ["a", "b"] and list(vectors["a"][:2]) == [1.0, 0.0]
    await index.delete("ana", ["a"])
    assert [hit.id for hit in await index.query("ana", _UNIT, 3)] == ["b"]
    await server.close()


async def test_a_server_that_stops_answering_finds_nothing_and_says_why(
    tmp_path: Path, sql_url: str
) -> None:
    """A turn goes on with what SQL finds; opening the stores names the setting."""
    down = f"http://127.0.0.1:{_free_port()}"  # nothing listens there
    server = ChromaServer(down)
    index = ChromaIndex(server, "down")
    assert await index.query("ana", _UNIT, 3) == []
    with pytest.raises(VectorStoreUnavailable):
        await index.upsert("ana", ["a"], [_UNIT], ["I play chess"], [{}])
    await server.close()
    with pytest.raises(ConfigError, match=r"vector\.url"):
        async with opened_stores(make_settings(tmp_path, None, sql_url, vector={"url": down})):
            pass


_UNIT = [1.0] + [0.0] * 383
