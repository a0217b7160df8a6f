"""The retriever's training data: the pool's entries as rows of vectors, texts and labels."""

from __future__ import annotations

import numpy as np

from memory.pool.reranker import Entries


def test_entries_subset_keeps_rows_together() -> None:
    entries = Entries(np.eye(3, dtype=np.float32), ("a", "b", "c"), ("x", "y", "x"),
                      ("k1", "k2", "k3"))
    part = entries.subset([2, 0])
    assert part.texts == ("c", "a") and part.kinds == ("k3", "k1")
    assert part.labels() == ["x/k3", "x/k1"]
