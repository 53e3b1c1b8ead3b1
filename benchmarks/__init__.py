"""Benchmarks of leafgrad against PyTorch: ``python -m benchmarks`` runs them all."""

import os

# PyTorch's OpenMP threads spin after each op by default; interleaved in one process, on a
# busy machine, that spinning takes the cores from whatever runs next (the other library's
# turn included): a (1000, 100) op chain measured 244 ms per step for PyTorch at its default
# threads instead of 18 ms with passive waiting. Set before anything imports torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
