"""The heap of a serving process: few malloc arenas, and what a companion loads at start set
aside from the garbage collector."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys

MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # glibc's mallopt parameter


def few_malloc_arenas() -> None:
    """At most two malloc arenas from now on (glibc; elsewhere nothing changes). glibc gives
    every thread that meets another in malloc an arena of its own, up to eight per core, and
    memory freed in one is not used by another: a bot process (its event loop, the embedding
    thread, the worker threads of chroma's client and of spaCy) held 538 MB at its peak under
    load with them, 510 MB with two (`benchmarks/load`, 300 users). Call it before the threads
    start."""
    if not sys.platform.startswith("linux"):
        return
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return
    libc = ctypes.CDLL(libc_name)
    if hasattr(libc, "mallopt"):  # musl has none
        libc.mallopt(_M_ARENA_MAX, MALLOC_ARENAS)


def settle() -> None:
    """Collect once, then freeze what is left (`gc.freeze`). What an open companion holds (the
    embedding model's session, chromadb's, SQLAlchemy's and the settings' objects: about
    250,000) lives as long as the process, and a full collection that walks all of it stopped
    every reply in progress for 160-310 ms under load (`benchmarks/load`, 24 times in 1,500
    messages). Later collections walk only what came after. Collecting first keeps garbage out
    of what is frozen."""
    gc.collect()
    gc.freeze()
