"""A process's numerical libraries compute in the calling thread: their pools of threads spin
between products and cost a turn CPU for nothing (bot/blas.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

POOLS = """
import json
import numpy
from bot.blas import compute_in_calling_threads
compute_in_calling_threads()
import scipy.sparse, sklearn.linear_model  # their own OpenBLAS and OpenMP load afterwards
from threadpoolctl import threadpool_info
print(json.dumps({info["filepath"]: info["num_threads"] for info in threadpool_info()}))
"""


def _pools(**environment: str) -> dict[str, int]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", POOLS], env=clean | environment,
                          capture_output=True, text=True, check=True, timeout=120)
    pools: dict[str, int] = json.loads(done.stdout)
    return pools


def test_every_pool_loaded_before_or_after_has_one_thread() -> None:
    pools = _pools()
    assert len(pools) >= 3, pools  # NumPy's OpenBLAS, SciPy's, scikit-learn's OpenMP
    assert set(pools.values()) == {1}, pools


def test_a_thread_count_the_person_set_is_kept() -> None:
    pools = _pools(OPENBLAS_NUM_THREADS="2")
    assert 2 in pools.values(), pools
