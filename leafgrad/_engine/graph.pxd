# Cython's declarations for graph.py (read only where it is compiled; see _compiled.py): the
# nodes' fields as C fields, so that the nodes' own methods (``OpNode._record``, ``apply``)
# read and write them, and their saves' (a typed ``_saved``), directly instead of through
# CPython's generic attribute lookup. Every field stays a public attribute, as the slots were.
cimport cython

from .saved cimport _SavedTensors


@cython.auto_pickle(False)
cdef class Node:
    cdef object __weakref__
    cdef public object _post_hooks, _pre_hooks, _retain_grad_hooks, _tensor_pre_hooks
    cdef public _SavedTensors _saved  # or None
    cdef public object metadata_, next_functions, sequence_nr


@cython.auto_pickle(False)
cdef class _OpNode(Node):
    cdef public object _backward, _name, num_outputs
