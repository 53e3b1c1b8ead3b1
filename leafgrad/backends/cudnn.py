"""``torch.backends.cudnn``: flags a script may set (they change nothing here)."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
