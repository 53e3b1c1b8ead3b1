"""The modules of ``torch.utils.benchmark.utils`` that leafgrad provides."""
