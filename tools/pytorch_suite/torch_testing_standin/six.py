"""``torch._six`` names the older test file imports."""

import math

inf = math.inf
nan = math.nan
string_classes = (str, bytes)


def istuple(obj):
    return isinstance(obj, tuple)
