# Cython's declarations for saved.py (read only where it is compiled; see _compiled.py): the
# saves' fields as C fields, so that ``SavedTensors``'s own methods (``_setup``, ``unpack``,
# ``release``) read and write them directly. Every field stays a public attribute.
cimport cython


@cython.auto_pickle(False)
cdef class _SavedTensors:
    cdef public object _checked, _from_ctx, _more_guards, _output_guard, _output_saved
    cdef public object _packed, _released, _values, _versions, output, output_tangents, params
