"""Taught facts searched in memory find what the vector store finds, and a fact taught,
retracted or restored in another process changes what the next message finds (SQLite and the
real MariaDB, embedded chromadb)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.app.stores import Stores
from bot.settings import Settings
from memory.facts.held_taught import HeldTaught
from memory.facts.hits import metadata_of
from memory.index.chroma import ChromaIndex
from memory.index.embedded import open_embedded
from memory.types import Fact, Origin, Speaker
from tests.conftest import opened_stores

SAID = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
TAUGHT = ["My sister's name is Lea.", "I am allergic to peanuts.", "My cat is called Miso.",
          "I work as a nurse in Porto.", "My favourite band is Radiohead.",
          "I run every Sunday morning.", "My birthday is on the ninth of May."]
QUESTIONS = ["What is my sister called?", "Which food must I avoid?", "What do I do for a living?",
             "When is my birthday?", "What music do I like?"]


def _taught(n: int, user: str, text: str) -> Fact:
    return Fact(f"{n:032x}", user, text, Speaker.USER, SAID, (n,), origin=Origin.TAUGHT)


async def _nearest(stores: Stores, user_id: str, question: str, limit: int = 1) -> list[str]:
    """The texts of the nearest taught facts, as a message's recall searches them."""
    [vector] = await stores.embedder.embed([question])
    version = (await stores.facts.rows.held(user_id)).taught_version
    found = await stores.facts.by_meaning(user_id, vector, limit, taught=True,
                                          taught_version=version)
    return [fact.text for fact, _ in found]


async def test_the_search_in_memory_finds_what_the_vector_store_finds(stores: Stores) -> None:
    await stores.facts.add_facts([_taught(i, "ana", text) for i, text in enumerate(TAUGHT)])
    await stores.facts.add_facts([_taught(99, "ben", "My sister's name is Zoe.")])
    for question in QUESTIONS:
        [vector] = await stores.embedder.embed([question])
        version = (await stores.facts.rows.held("ana")).taught_version
        held = await stores.facts.by_meaning("ana", vector, 3, taught=True,
                                             taught_version=version)
        indexed = await stores.facts.by_meaning("ana", vector, 3, taught=True)
        assert [f for f, _ in held] == [f for f, _ in indexed], question
        assert all(abs(a - b) < 1e-3 for (_, a), (_, b) in zip(held, indexed, strict=True))
        assert all(fact.user_id == "ana" for fact, _ in held)
    assert await _nearest(stores, "ben", QUESTIONS[0], limit=5) == ["My sister's name is Zoe."]


async def test_what_another_process_teaches_or_retracts_is_seen_at_the_next_message(
    stores: Stores, store_settings: Settings
) -> None:
    sister = _taught(1, "ana", "My sister's name is Lea.")
    await stores.facts.add_facts([sister, _taught(2, "ana", "I am allergic to peanuts.")])
    async with opened_stores(store_settings) as other_process:
        assert await _nearest(other_process, "ana", QUESTIONS[0]) == [sister.text]

        await stores.facts.add_facts([_taught(3, "ana", "My sister is called Noor now.")])
        assert "My sister is called Noor now." in await _nearest(other_process, "ana",
                                                                 QUESTIONS[0], limit=2)
        await stores.facts.retract("ana", sister.id)
        assert sister.text not in await _nearest(other_process, "ana", QUESTIONS[0], limit=3)
        await stores.facts.restore("ana", sister.id[:8])
        assert sister.text in await _nearest(other_process, "ana", QUESTIONS[0], limit=3)
        await stores.facts.forget_taught("ana")
        assert await _nearest(other_process, "ana", QUESTIONS[0], limit=3) == []


async def test_a_user_with_too_many_taught_facts_to_hold_is_searched_in_the_vector_store(
    stores: Stores, tmp_path: Path
) -> None:
    index = ChromaIndex(open_embedded(tmp_path / "taught"), "taught-test")
    facts = [_taught(i, "ana", text) for i, text in enumerate(TAUGHT[:3])]
    await index.upsert("ana", [f.id for f in facts],
                       await stores.embedder.embed([f.text for f in facts]),
                       [f.text for f in facts], [metadata_of(f) for f in facts])
    [vector] = await stores.embedder.embed([QUESTIONS[0]])

    assert await HeldTaught(index, max_held=2).nearest("ana", (3, 3), [vector], 1) is None
    found = await HeldTaught(index, max_held=3).nearest("ana", (3, 3), [vector], 1)
    assert found is not None
    assert [[f.text for f, _ in hits] for hits in found] == [[facts[0].text]]
