"""Would spreading large elementwise work over the cores pay? One thread vs a thread pool.

    python benchmarks/threads.py [--rows 1000 10000 100000] [--rounds 30]

NumPy's elementwise kernels run on one core. Collocation points are independent, so an
(N, 20) array (a Burgers network's hidden layer) can be split by rows over the cores: NumPy
in a thread pool (its ufuncs release the GIL) or numexpr where installed. This measures
``x * y`` and ``tanh(x)`` each way, interleaved, medians in microseconds; leafgrad adopts
neither unless the pool wins on the machine it is meant for (README, "Benchmarks"). The
"helper" rows hand the first rows to one thread woken through a lock, the caller computing
the rest: a round trip of ~10 us where a ThreadPoolExecutor's future costs ~60 us.
"""

from __future__ import annotations

import _thread
import argparse
import itertools
import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

try:
    import numexpr
except ImportError:  # measured only where installed
    numexpr = None


def _split(pool, parts, fn, out, *arrays):
    """``fn(*arrays, out=out)`` with the rows cut into ``parts`` blocks run in ``pool``."""
    bounds = np.linspace(0, out.shape[0], parts + 1).astype(int)
    futures = [
        pool.submit(fn, *(a[lo:hi] for a in arrays), out=out[lo:hi])
        for lo, hi in itertools.pairwise(bounds.tolist())
    ]
    for f in futures:
        f.result()
    return out


class _Helper:
    """One daemon thread running one call when woken by a lock (no futures, no queue)."""

    def __init__(self) -> None:
        self.go, self.done = _thread.allocate_lock(), _thread.allocate_lock()
        self.go.acquire()
        self.done.acquire()
        self.call = None
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            self.go.acquire()
            try:
                self.call()
            finally:
                self.done.release()

    def halves(self, fn, out, *arrays):
        """``fn(*arrays, out=out)``: the first half of the rows here, the rest in the caller."""
        h = out.shape[0] // 2
        self.call = lambda: fn(*(a[:h] for a in arrays), out=out[:h])
        self.go.release()
        fn(*(a[h:] for a in arrays), out=out[h:])
        self.done.acquire()
        return out


def candidates(x, y, out, cores: int) -> dict:
    """Name -> a call computing into ``out``."""
    pool = ThreadPoolExecutor(cores)
    found = {
        "mul 1 thread": lambda: np.multiply(x, y, out=out),
        f"mul pool {cores}": lambda: _split(pool, cores, np.multiply, out, x, y),
        "tanh 1 thread": lambda: np.tanh(x, out=out),
        f"tanh pool {cores}": lambda: _split(pool, cores, np.tanh, out, x),
    }
    if cores > 1:
        helper = _Helper()
        found["mul helper"] = lambda: helper.halves(np.multiply, out, x, y)
        found["tanh helper"] = lambda: helper.halves(np.tanh, out, x)
    if numexpr is not None:
        numexpr.set_num_threads(cores)
        found[f"mul numexpr {cores}"] = lambda: numexpr.evaluate("x * y", {"x": x, "y": y}, out=out)
        found[f"tanh numexpr {cores}"] = lambda: numexpr.evaluate("tanh(x)", {"x": x}, out=out)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"cores {cores}, load average {os.getloadavg()[0]:.1f}, numexpr {numexpr is not None}")
    for n in args.rows:
        for dtype in ("float64", "float32"):
            rng = np.random.default_rng(0)
            x, y = (rng.uniform(-1, 1, (n, 20)).astype(dtype) for _ in range(2))
            out = np.empty_like(x)
            calls = candidates(x, y, out, cores)
            samples = {name: [] for name in calls}
            for _ in range(args.rounds):
                for name, call in calls.items():
                    start = time.perf_counter()
                    call()
                    samples[name].append(time.perf_counter() - start)
            cells = ", ".join(
                f"{name} {statistics.median(s) * 1e6:.0f}" for name, s in samples.items()
            )
            print(f"({n}, 20) {dtype}: {cells} us")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
