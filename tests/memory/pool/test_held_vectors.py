"""The pool's vectors searched in memory find what the vector store finds, never an entry
another process took out, and a domain too large to hold is left to the vector store (SQLite
and the real MariaDB, embedded chromadb)."""

from __future__ import annotations

from pathlib import Path

from bot.app.scrubbing import packaged_scrubber
from bot.app.stores import Stores
from memory.index.chroma import ChromaIndex
from memory.index.embedded import open_embedded
from memory.pool.held import HeldVectors
from memory.pool.store import SharedPool
from memory.types import PoolEntry, PoolStatus

TASKS = ["a synonym for brave", "the opposite of tired", "a rhyme for moon", "a haiku about rain",
         "how to boil an egg", "a toast for a wedding", "a limerick about a cat",
         "what 'ubiquitous' means", "a pun about bread", "a riddle about time"]
QUESTIONS = ["another word for courageous?", "write me a short poem about the rain",
             "how long do eggs boil", "what does ubiquitous mean"]


def _entry(i: int, task: str) -> PoolEntry:
    return PoolEntry(f"e{i}", f"Give me {task}", f"Here is {task}.", "tutor", "language",
                     "kind", PoolStatus.SHARED, "admin")


def _pool(stores: Stores, index: ChromaIndex, held: HeldVectors | None = None) -> SharedPool:
    return SharedPool(stores.pool.rows, index, stores.embedder, packaged_scrubber(),
                      clock=lambda: 0.0, held=held)


async def test_the_search_in_memory_finds_what_the_vector_store_finds(
    stores: Stores, tmp_path: Path
) -> None:
    index = ChromaIndex(open_embedded(tmp_path / "pool"), "pool-test")
    pool = _pool(stores, index)
    entries = [_entry(i, task) for i, task in enumerate(TASKS)]
    await pool.add_written(entries)
    prompts = {e.id: e.prompt for e in entries}

    for question in QUESTIONS:
        [vector] = await stores.embedder.embed([question])
        found = await pool.nearest(["language"], vector, 3)
        stored = await index.query("language", vector, 3)
        assert [h.id for h in found] == [h.id for h in stored], question
        assert all(abs(a.score - b.score) < 1e-3 for a, b in zip(found, stored, strict=True))
        assert all(h.document == prompts[h.id] for h in found)


async def test_an_entry_another_process_took_out_is_never_found(
    stores: Stores, tmp_path: Path
) -> None:
    index = ChromaIndex(open_embedded(tmp_path / "pool"), "pool-test")
    here, other = _pool(stores, index), _pool(stores, index)
    brave = _entry(0, TASKS[0])
    await here.add_written([brave, _entry(1, TASKS[1])])
    [vector] = await stores.embedder.embed(["another word for courageous?"])
    assert [h.id for h in await other.nearest(["language"], vector, 1)] == ["e0"]

    await here.set_status(brave, PoolStatus.REJECTED)  # the clock stands: no new read there

    assert [h.id for h in await other.nearest(["language"], vector, 1)] == ["e1"]
    assert [h.id for h in await here.nearest(["language"], vector, 1)] == ["e1"]


async def test_a_domain_too_large_to_hold_is_searched_in_the_vector_store(
    stores: Stores, tmp_path: Path
) -> None:
    index = ChromaIndex(open_embedded(tmp_path / "pool"), "pool-test")
    held = HeldVectors(index, stores.pool.rows.count_shared, max_held=2)
    pool = _pool(stores, index, held)
    await pool.add_written([_entry(i, task) for i, task in enumerate(TASKS[:3])])
    [vector] = await stores.embedder.embed(["another word for courageous?"])

    assert await held.nearest("language", vector, 3) is None
    assert [h.id for h in await pool.nearest(["language"], vector, 1)] == ["e0"]
