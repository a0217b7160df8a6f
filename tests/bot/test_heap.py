"""A serving process sets aside from the garbage collector what lives as long as it does,
including what its first messages load, and gives the memory it freed back to the system."""

from __future__ import annotations

import gc
import os
import sys
import weakref
from collections.abc import Iterator

import pytest

from bot.heap import give_back_freed_memory, settle, settle_after_first_messages


@pytest.fixture
def unfrozen_after() -> Iterator[None]:
    yield
    gc.unfreeze()  # the rest of the suite collects as usual


def _in_collectors_reach(item: object) -> bool:
    return any(tracked is item for tracked in gc.get_objects())


@pytest.mark.usefixtures("unfrozen_after")
async def test_what_loads_after_start_is_out_of_the_collectors_reach_once_settled_again() -> None:
    settle()
    # What a first message loads, as dateparser's data is: many small lists of words.
    loaded_later = [[f"word {i}"] for i in range(5_000)]
    assert _in_collectors_reach(loaded_later[0])

    await settle_after_first_messages(after=(0.01, 0.02))

    assert not _in_collectors_reach(loaded_later[0])
    assert gc.get_freeze_count() >= len(loaded_later)


@pytest.mark.usefixtures("unfrozen_after")
async def test_settling_again_keeps_garbage_out_of_what_is_frozen() -> None:
    settle()

    class Cycle:
        other: Cycle

    first, second = Cycle(), Cycle()
    first.other, second.other = second, first
    watching = weakref.ref(first)
    del first, second  # a cycle only the collector frees

    await settle_after_first_messages(after=(0.01,))

    assert watching() is None


def _resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_memory_freed_between_blocks_still_in_use_goes_back_to_the_system() -> None:
    # What replies in flight leave behind: many blocks freed, a few still in use among them.
    blocks = [bytes(4_000) for _ in range(40_000)]  # 160 MB, from malloc (not pymalloc)
    kept = blocks[::50]
    del blocks
    held = _resident_mb()

    assert give_back_freed_memory()

    assert held - _resident_mb() > 100
    assert len(kept) == 800
