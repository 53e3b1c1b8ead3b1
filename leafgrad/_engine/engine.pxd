# Cython's declarations for engine.py (read only where it is compiled; see _compiled.py): the
# node type, whose fields the engine's typed locals (``@cython.locals``) read directly.
from .graph cimport Node
