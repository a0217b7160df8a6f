"""A domain nobody has shared with is not searched on every message; its first shared entry is
searched at once by the process that shared it, and within a minute by every other (SQLite and
the real MariaDB, embedded chromadb)."""

from __future__ import annotations

from pathlib import Path

from bot.app.scrubbing import packaged_scrubber
from bot.app.stores import Stores
from memory.index.chroma import ChromaIndex
from memory.index.embedded import open_embedded
from memory.pool.store import REFRESH_SECONDS, SharedPool
from memory.types import PoolEntry, PoolStatus

ENTRY = PoolEntry("e1", "Give me a synonym for brave", "Valiant, bold or fearless.", "tutor",
                  "language", "synonym", PoolStatus.SHARED, "admin")


async def test_a_domains_first_entry_is_found_here_at_once_and_elsewhere_within_a_minute(
    stores: Stores, tmp_path: Path
) -> None:
    now = [0.0]
    index = ChromaIndex(open_embedded(tmp_path / "pool"), "pool-test")

    def process() -> SharedPool:
        return SharedPool(stores.pool.rows, index, stores.embedder, packaged_scrubber(),
                          clock=lambda: now[0])

    sharing, other = process(), process()
    [question] = await stores.embedder.embed(["a synonym for courageous?"])
    for pool in (sharing, other):
        assert await pool.nearest(["language"], question, 3) == []  # nothing shared yet

    await sharing.add(ENTRY, scrub=False)

    assert [hit.id for hit in await sharing.nearest(["language"], question, 3)] == ["e1"]
    assert await other.nearest(["language"], question, 3) == []  # read a moment ago
    now[0] += REFRESH_SECONDS
    assert [hit.id for hit in await other.nearest(["language"], question, 3)] == ["e1"]
    assert await other.nearest(["cooking"], question, 3) == []
