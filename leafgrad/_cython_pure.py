"""The ``cython`` names compiled modules use, for running them as plain Python without Cython.

Compiled, ``import cython`` is Cython's own (its types become C declarations); run as plain
Python where Cython is installed, it is Cython's pure-Python stand-in. Elsewhere this module
takes its place: each name does nothing, as Cython's stand-in does.
"""


def locals(**types):  # (shadows the builtin here only: Cython's name)
    """``@cython.locals(node=Node)``: the local ``node`` is a ``Node`` (compiled: typed)."""
    return lambda function: function
