"""The heap of a serving process: what a companion loads at start is set aside from the garbage
collector."""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect once, then freeze what is left (`gc.freeze`). What an open companion holds (the
    embedding model's session, chromadb's, SQLAlchemy's and the settings' objects: about
    250,000) lives as long as the process, and a full collection that walks all of it stopped
    every reply in progress for 160-310 ms under load (`benchmarks/load`, 24 times in 1,500
    messages). Later collections walk only what came after. Collecting first keeps garbage out
    of what is frozen."""
    gc.collect()
    gc.freeze()
