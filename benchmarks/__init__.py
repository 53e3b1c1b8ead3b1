"""Benchmarks of leafgrad against PyTorch: ``python -m benchmarks`` runs them all."""
