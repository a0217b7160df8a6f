"""The numerical libraries of a process compute in the thread that calls them.

NumPy's and SciPy's OpenBLAS and scikit-learn's OpenMP each keep a pool of threads, one a core,
and between two products their threads spin, waiting for the next. A turn's products are small
(a message against a few hundred vectors, a retriever's classes): the pool splits no work worth
splitting, and its spinning cost a turn 4-5 ms of CPU on two cores, a tenth of all a turn costs
(`benchmarks/turn_overhead`'s memory, 200 turns; docs/pages/performance.md). A bot's parallelism
is its turns, each in its own threads for SQL, vectors and embeddings.
"""

from __future__ import annotations

import os

# Read by OpenBLAS and OpenMP when they load; threadpoolctl tells those loaded already.
THREAD_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


def compute_in_calling_threads() -> None:
    """One thread for every numerical library of this process, unless the environment already
    sets how many (a person's choice wins)."""
    if any(name in os.environ for name in THREAD_SETTINGS):
        return
    for name in THREAD_SETTINGS:
        os.environ[name] = "1"
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
