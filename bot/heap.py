"""The heap of a serving process: few malloc arenas, freed memory given back to the system,
and what a companion loads at start set aside from the garbage collector."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import functools
import gc
import sys
import time
from collections.abc import Sequence

MALLOC_ARENAS = 2
# Seconds into serving when the heap is settled again (`settle_after_first_messages`).
SETTLE_AGAIN_AFTER = (60.0, 600.0)
# How often a serving process gives freed memory back (`give_back_freed_memory`).
GIVE_BACK_EVERY_SECONDS = 10.0
_M_ARENA_MAX = -8  # glibc's mallopt parameter


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library on Linux (None elsewhere)."""
    if not sys.platform.startswith("linux"):
        return None
    libc_name = ctypes.util.find_library("c")
    return None if libc_name is None else ctypes.CDLL(libc_name)


def few_malloc_arenas() -> None:
    """At most two malloc arenas from now on (glibc; elsewhere nothing changes). glibc gives
    every thread that meets another in malloc an arena of its own, up to eight per core, and
    memory freed in one is not used by another: a bot process (its event loop, the embedding
    thread, the worker threads of chroma's client and of spaCy) held 538 MB at its peak under
    load with them, 510 MB with two (`benchmarks/load`, 300 users). Call it before the threads
    start."""
    libc = _libc()
    if libc is not None and hasattr(libc, "mallopt"):  # musl has none
        libc.mallopt(_M_ARENA_MAX, MALLOC_ARENAS)


def give_back_freed_memory() -> bool:
    """Return the pages malloc holds free to the system now (glibc's `malloc_trim`); False
    where there is none. The memory a hundred replies in flight used is freed in the middle of
    malloc's arenas, between blocks still in use: glibc keeps it resident until trimmed."""
    libc = _libc()
    if libc is None or not hasattr(libc, "malloc_trim"):
        return False
    libc.malloc_trim(0)
    return True


def settle() -> None:
    """Collect once, then freeze what is left (`gc.freeze`). What an open companion holds (the
    embedding model's session, chromadb's, SQLAlchemy's and the settings' objects: about
    250,000) lives as long as the process, and a full collection that walks all of it stopped
    every reply in progress for 160-310 ms under load (`benchmarks/load`, 24 times in 1,500
    messages). Later collections walk only what came after. Collecting first keeps garbage out
    of what is frozen."""
    gc.collect()
    gc.freeze()


async def tend(
    settle_after: Sequence[float] = SETTLE_AGAIN_AFTER,
    give_back_every: float = GIVE_BACK_EVERY_SECONDS,
) -> None:
    """What a serving process does for its heap while it serves, as a task beside it: settle
    again after the first messages, and give freed memory back every `give_back_every` s."""
    await asyncio.gather(settle_after_first_messages(settle_after),
                         _keep_giving_back(give_back_every))


async def _keep_giving_back(every: float) -> None:
    while True:
        await asyncio.sleep(every)
        # ctypes lets go of the interpreter while it trims: replies go on meanwhile.
        if not await asyncio.to_thread(give_back_freed_memory):
            return


async def settle_after_first_messages(after: Sequence[float] = SETTLE_AGAIN_AFTER) -> None:
    """Settle again at each of `after` (seconds from now). The first messages load what loads
    on first use (dateparser's data for every language, spaCy's pipeline, scipy for the pool's
    reranker, the caches of SQLAlchemy's statements): about 100,000 more objects that live as
    long as the process. Left in reach, every full collection walked them: 80-165 ms, every 5
    to 10 s under load (`benchmarks/load`, 300 users), each stopping every reply in progress;
    20-50 ms once settled again. Run it as a task beside serving."""
    started = time.monotonic()
    for seconds in sorted(after):
        await asyncio.sleep(max(0.0, started + seconds - time.monotonic()))
        settle()
