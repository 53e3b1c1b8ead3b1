"""``set_num_threads`` / ``get_num_threads``: the thread count of NumPy's BLAS (threadpoolctl).

leafgrad's only multi-threaded kernels are BLAS's, so the BLAS pool plays the part of
PyTorch's intra-op pool.
"""

from __future__ import annotations

from threadpoolctl import threadpool_info, threadpool_limits


def set_num_threads(n: int) -> None:
    """Use ``n`` threads in BLAS from now on (all BLAS libraries NumPy and SciPy loaded)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise RuntimeError(f"set_num_threads expects a positive integer, got {n!r}")
    threadpool_limits(limits=n, user_api="blas")


def get_num_threads() -> int:
    """The number of threads BLAS uses (1 where no threaded BLAS is loaded)."""
    counts = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    return max(counts, default=1)
