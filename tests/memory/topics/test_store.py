"""The topic store on real chromadb (embedded) and both SQL backends, with the real embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.index.chroma import ChromaIndex
from memory.index.embedded import open_embedded
from memory.sql.engine import open_engine
from memory.sql.migrations import migrate
from memory.topics.rows import SQLTopicRows
from memory.topics.store import IndexedTopicStore

HOBBY = "The host and I talked about hobbies, and the host said he plays table tennis every week."
WORK = "The host and I talked about work, and the host said he is a night-shift nurse."
FOOD = "The host and I talked about food, and the host said his favourite dish is ramen."


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLM:
    return OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())


@pytest.fixture
async def store(
    sql_url: str, tmp_path: Path, embedder: OnnxMiniLM
) -> AsyncIterator[IndexedTopicStore]:
    engine = open_engine(sql_url)
    await migrate(engine)
    client = open_embedded(tmp_path)
    yield IndexedTopicStore(SQLTopicRows(engine), ChromaIndex(client, "topics-test"), embedder)
    await client.close()
    await engine.dispose()


async def _query(store: IndexedTopicStore, embedder: OnnxMiniLM, user: str, text: str,
                 floor: float = -1.0) -> list[tuple[str, float]]:
    [vector] = await embedder.embed([text])
    found = await store.search(user, vector, limit=3, floor=floor)
    return [(s.topic.label, s.score) for s in found]


async def test_search_finds_the_closest_topic_with_a_cosine_score(
    store: IndexedTopicStore, embedder: OnnxMiniLM
) -> None:
    await store.add_topics("alice", [("hobbies", HOBBY), ("work", WORK), ("food", FOOD)])
    found = await _query(store, embedder, "alice", "Do you remember which sport I play?")
    assert next(label for label, _ in found) == "hobbies"
    scores = [score for _, score in found]
    assert scores == sorted(scores, reverse=True)
    assert all(-1.0 <= s <= 1.0 for s in scores)


async def test_floor_drops_unrelated_topics(
    store: IndexedTopicStore, embedder: OnnxMiniLM
) -> None:
    await store.add_topics("alice", [("hobbies", HOBBY), ("work", WORK), ("food", FOOD)])
    found = await _query(store, embedder, "alice", "what sport do I play?", floor=0.3)
    assert [label for label, _ in found] == ["hobbies"]


async def test_another_users_topics_are_never_returned(
    store: IndexedTopicStore, embedder: OnnxMiniLM
) -> None:
    await store.add_topic("bob", "hobbies", HOBBY)  # the very text alice will ask about
    await store.add_topic("alice", "food", FOOD)
    found = await _query(store, embedder, "alice", HOBBY)
    assert [label for label, _ in found] == ["food"]
    assert [t.label for t in await store.latest("alice", 5)] == ["food"]
    assert [t.label for t in await store.list_topics("alice")] == ["food"]


async def test_latest_are_the_newest_first(store: IndexedTopicStore) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for day in range(7):
        await store.add_topic("alice", f"t{day}", f"topic of day {day}",
                              at=start + timedelta(days=day))
    assert [t.label for t in await store.latest("alice", 5)] == ["t6", "t5", "t4", "t3", "t2"]
    assert await store.count("alice") == 7


async def test_forget_removes_topics_from_search_and_lists(
    store: IndexedTopicStore, embedder: OnnxMiniLM
) -> None:
    hobby, _work = await store.add_topics("alice", [("hobbies", HOBBY), ("work", WORK)])
    await store.add_topic("bob", "hobbies", HOBBY)
    assert await store.forget("alice", hobby.id) == 1
    assert [label for label, _ in await _query(store, embedder, "alice", HOBBY)] == ["work"]
    assert await store.forget("alice", hobby.id) == 0
    assert await store.forget("alice") == 1
    assert await _query(store, embedder, "alice", WORK) == []
    assert await store.count("alice") == 0
    assert [label for label, _ in await _query(store, embedder, "bob", HOBBY)] == ["hobbies"]


async def test_forgetting_another_users_topic_id_does_nothing(store: IndexedTopicStore) -> None:
    bobs = await store.add_topic("bob", "hobbies", HOBBY)
    assert await store.forget("alice", bobs.id) == 0
    assert await store.count("bob") == 1


async def test_topics_survive_reopening_the_store(
    sql_url: str, tmp_path: Path, embedder: OnnxMiniLM, store: IndexedTopicStore
) -> None:
    await store.add_topic("alice", "hobbies", HOBBY)
    engine = open_engine(sql_url)
    client = open_embedded(tmp_path)  # a second client on the same folder reopens the data
    reopened = IndexedTopicStore(SQLTopicRows(engine), ChromaIndex(client, "topics-test"), embedder)
    assert [label for label, _ in await _query(reopened, embedder, "alice", HOBBY)] == ["hobbies"]
    await client.close()
    await engine.dispose()
