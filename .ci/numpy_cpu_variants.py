"""Print ``label|npy_features|openblas_core`` lines: settings that switch off the SIMD kernels
NumPy and OpenBLAS would pick on this CPU, so the tests run again on older ones.

One line turns off the AVX-512 groups (NumPy then uses AVX2 where it can; OpenBLAS its Haswell
kernels), one every dispatched group (NumPy's baseline kernels). Lines that would change
nothing are left out; an empty OpenBLAS core leaves OpenBLAS's own choice.
"""

try:
    from numpy._core import _multiarray_umath as umath
except ImportError:  # NumPy 1.x
    from numpy.core import _multiarray_umath as umath

available = [f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f)]
avx512 = [f for f in available if f.startswith("AVX512") or f == "X86_V4"]
if avx512:
    print("AVX-512|" + " ".join(avx512) + "|Haswell")
if available and available != avx512:
    print("all dispatched|" + " ".join(available) + "|")
