"""``torch.backends.mps``: Apple's Metal backend, absent."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
