# Cython's declarations for plan.py (read only where it is compiled; see _compiled.py): the
# node type, whose fields the walk's typed locals (``@cython.locals``) read directly.
from .graph cimport Node
