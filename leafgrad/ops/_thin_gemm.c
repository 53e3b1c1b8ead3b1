/* leafgrad.ops._thin_gemm: float64 and float32 products of a PINN layer's shapes without
 * OpenBLAS's packing, for x86-64 CPUs with AVX2 and FMA (``_gemm`` says where they are taken).
 *
 * A layer's products are tall and thin: ``(M, K) @ (K, N)`` with M the points (thousands)
 * and K, N the widths (20 to 64), and ``A^T G`` summed over the M points for the weight's
 * gradient. OpenBLAS's Haswell kernels (also Zen's) pack the whole tall operand into a
 * buffer first and clear the output in a pass of its own before accumulating into it: on
 * this project's AMD EPYC (Zen 3), one thread, ``(3000, 20) @ (20, 20)`` spent 10% of a
 * collapsed Burgers step (N = 1e3, float64) packing and 4% clearing, next to 23% in the
 * kernel. Here the narrow operand stays in L1 and each output row is written once, from
 * registers: 4 rows x 8 columns of accumulators, one FMA per product. No library here
 * offers this (MKL's kernels on AMD CPUs are its generic ones, slower than OpenBLAS's;
 * BLIS's wheel ran 3x slower than OpenBLAS).
 *
 * ``product`` sums each entry over k in order with one rounding per FMA, as OpenBLAS's
 * Haswell kernel does (float64: the same bits in the measurements); ``gram`` sums each
 * block of 64 rows in order and adds the blocks' sums (an error growing with 64 + M / 64
 * terms, not M), where OpenBLAS blocks the rows its own way (round-off apart). float32 as
 * float64, eight to a register.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define THIN_KERNELS 1
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2,fma")))
#else
#define THIN_KERNELS 0
#endif

#define MAX_WIDTH 64 /* K and N at most: the narrow operand, copied, fits in L1 */
#define CHUNK 64     /* gram's rows per pass: both operands' chunks stay in L1 */

#if THIN_KERNELS

/* C (M x N, row stride ldc) = A (M x K, row stride lda) B (K x N, C-contiguous). */
AVX2 static void product_kernel(Py_ssize_t M, Py_ssize_t N, Py_ssize_t K, const double *A,
                                Py_ssize_t lda, const double *B, double *C, Py_ssize_t ldc)
{
    Py_ssize_t i = 0;
    for (; i + 4 <= M; i += 4) {
        const double *a0 = A + i * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
        double *c0 = C + i * ldc, *c1 = c0 + ldc, *c2 = c1 + ldc, *c3 = c2 + ldc;
        Py_ssize_t j = 0;
        for (; j + 8 <= N; j += 8) {
            __m256d x00 = _mm256_setzero_pd(), x01 = _mm256_setzero_pd();
            __m256d x10 = _mm256_setzero_pd(), x11 = _mm256_setzero_pd();
            __m256d x20 = _mm256_setzero_pd(), x21 = _mm256_setzero_pd();
            __m256d x30 = _mm256_setzero_pd(), x31 = _mm256_setzero_pd();
            const double *b = B + j;
            for (Py_ssize_t k = 0; k < K; k++, b += N) {
                __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4), a;
                a = _mm256_broadcast_sd(a0 + k);
                x00 = _mm256_fmadd_pd(a, b0, x00);
                x01 = _mm256_fmadd_pd(a, b1, x01);
                a = _mm256_broadcast_sd(a1 + k);
                x10 = _mm256_fmadd_pd(a, b0, x10);
                x11 = _mm256_fmadd_pd(a, b1, x11);
                a = _mm256_broadcast_sd(a2 + k);
                x20 = _mm256_fmadd_pd(a, b0, x20);
                x21 = _mm256_fmadd_pd(a, b1, x21);
                a = _mm256_broadcast_sd(a3 + k);
                x30 = _mm256_fmadd_pd(a, b0, x30);
                x31 = _mm256_fmadd_pd(a, b1, x31);
            }
            _mm256_storeu_pd(c0 + j, x00);
            _mm256_storeu_pd(c0 + j + 4, x01);
            _mm256_storeu_pd(c1 + j, x10);
            _mm256_storeu_pd(c1 + j + 4, x11);
            _mm256_storeu_pd(c2 + j, x20);
            _mm256_storeu_pd(c2 + j + 4, x21);
            _mm256_storeu_pd(c3 + j, x30);
            _mm256_storeu_pd(c3 + j + 4, x31);
        }
        for (; j + 4 <= N; j += 4) {
            __m256d x0 = _mm256_setzero_pd(), x1 = _mm256_setzero_pd();
            __m256d x2 = _mm256_setzero_pd(), x3 = _mm256_setzero_pd();
            const double *b = B + j;
            for (Py_ssize_t k = 0; k < K; k++, b += N) {
                __m256d b0 = _mm256_loadu_pd(b);
                x0 = _mm256_fmadd_pd(_mm256_broadcast_sd(a0 + k), b0, x0);
                x1 = _mm256_fmadd_pd(_mm256_broadcast_sd(a1 + k), b0, x1);
                x2 = _mm256_fmadd_pd(_mm256_broadcast_sd(a2 + k), b0, x2);
                x3 = _mm256_fmadd_pd(_mm256_broadcast_sd(a3 + k), b0, x3);
            }
            _mm256_storeu_pd(c0 + j, x0);
            _mm256_storeu_pd(c1 + j, x1);
            _mm256_storeu_pd(c2 + j, x2);
            _mm256_storeu_pd(c3 + j, x3);
        }
        for (; j < N; j++) { /* the last N % 4 columns */
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            for (Py_ssize_t k = 0; k < K; k++) {
                double bk = B[k * N + j];
                s0 = __builtin_fma(a0[k], bk, s0);
                s1 = __builtin_fma(a1[k], bk, s1);
                s2 = __builtin_fma(a2[k], bk, s2);
                s3 = __builtin_fma(a3[k], bk, s3);
            }
            c0[j] = s0;
            c1[j] = s1;
            c2[j] = s2;
            c3[j] = s3;
        }
    }
    for (; i < M; i++) { /* the last M % 4 rows */
        const double *a0 = A + i * lda;
        double *c0 = C + i * ldc;
        for (Py_ssize_t j = 0; j < N; j++) {
            double s = 0.0;
            for (Py_ssize_t k = 0; k < K; k++)
                s = __builtin_fma(a0[k], B[k * N + j], s);
            c0[j] = s;
        }
    }
}

/* One (r, j) tile of gram's output over rows [m0, m1) of ``type``: the body per row. */
#define GRAM_ROWS(type, ...)                                                                       \
    for (Py_ssize_t m = m0; m < m1; m++) {                                                   \
        const type *a = A + m * lda + r, *g = G + m * ldg + j;                               \
        __VA_ARGS__                                                                          \
    }

/* C (K1 x N, C-contiguous) = A^T G: A (M x K1, row stride lda), G (M x N, row stride ldg). */
AVX2 static void gram_kernel(Py_ssize_t M, Py_ssize_t K1, Py_ssize_t N, const double *A,
                             Py_ssize_t lda, const double *G, Py_ssize_t ldg, double *C)
{
    memset(C, 0, (size_t)(K1 * N) * sizeof(double));
    for (Py_ssize_t m0 = 0; m0 < M; m0 += CHUNK) {
        Py_ssize_t m1 = m0 + CHUNK < M ? m0 + CHUNK : M;
        Py_ssize_t r = 0;
        for (; r + 4 <= K1; r += 4) {
            Py_ssize_t j = 0;
            for (; j + 8 <= N; j += 8) {
                double *c0 = C + r * N + j, *c1 = c0 + N, *c2 = c1 + N, *c3 = c2 + N;
                __m256d x00 = _mm256_setzero_pd(), x01 = _mm256_setzero_pd();
                __m256d x10 = _mm256_setzero_pd(), x11 = _mm256_setzero_pd();
                __m256d x20 = _mm256_setzero_pd(), x21 = _mm256_setzero_pd();
                __m256d x30 = _mm256_setzero_pd(), x31 = _mm256_setzero_pd();
                GRAM_ROWS(double, {
                    __m256d g0 = _mm256_loadu_pd(g), g1 = _mm256_loadu_pd(g + 4), s;
                    s = _mm256_broadcast_sd(a);
                    x00 = _mm256_fmadd_pd(s, g0, x00);
                    x01 = _mm256_fmadd_pd(s, g1, x01);
                    s = _mm256_broadcast_sd(a + 1);
                    x10 = _mm256_fmadd_pd(s, g0, x10);
                    x11 = _mm256_fmadd_pd(s, g1, x11);
                    s = _mm256_broadcast_sd(a + 2);
                    x20 = _mm256_fmadd_pd(s, g0, x20);
                    x21 = _mm256_fmadd_pd(s, g1, x21);
                    s = _mm256_broadcast_sd(a + 3);
                    x30 = _mm256_fmadd_pd(s, g0, x30);
                    x31 = _mm256_fmadd_pd(s, g1, x31);
                })
                _mm256_storeu_pd(c0, _mm256_add_pd(_mm256_loadu_pd(c0), x00));
                _mm256_storeu_pd(c0 + 4, _mm256_add_pd(_mm256_loadu_pd(c0 + 4), x01));
                _mm256_storeu_pd(c1, _mm256_add_pd(_mm256_loadu_pd(c1), x10));
                _mm256_storeu_pd(c1 + 4, _mm256_add_pd(_mm256_loadu_pd(c1 + 4), x11));
                _mm256_storeu_pd(c2, _mm256_add_pd(_mm256_loadu_pd(c2), x20));
                _mm256_storeu_pd(c2 + 4, _mm256_add_pd(_mm256_loadu_pd(c2 + 4), x21));
                _mm256_storeu_pd(c3, _mm256_add_pd(_mm256_loadu_pd(c3), x30));
                _mm256_storeu_pd(c3 + 4, _mm256_add_pd(_mm256_loadu_pd(c3 + 4), x31));
            }
            for (; j + 4 <= N; j += 4) {
                double *c0 = C + r * N + j, *c1 = c0 + N, *c2 = c1 + N, *c3 = c2 + N;
                __m256d x0 = _mm256_setzero_pd(), x1 = _mm256_setzero_pd();
                __m256d x2 = _mm256_setzero_pd(), x3 = _mm256_setzero_pd();
                GRAM_ROWS(double, {
                    __m256d g0 = _mm256_loadu_pd(g);
                    x0 = _mm256_fmadd_pd(_mm256_broadcast_sd(a), g0, x0);
                    x1 = _mm256_fmadd_pd(_mm256_broadcast_sd(a + 1), g0, x1);
                    x2 = _mm256_fmadd_pd(_mm256_broadcast_sd(a + 2), g0, x2);
                    x3 = _mm256_fmadd_pd(_mm256_broadcast_sd(a + 3), g0, x3);
                })
                _mm256_storeu_pd(c0, _mm256_add_pd(_mm256_loadu_pd(c0), x0));
                _mm256_storeu_pd(c1, _mm256_add_pd(_mm256_loadu_pd(c1), x1));
                _mm256_storeu_pd(c2, _mm256_add_pd(_mm256_loadu_pd(c2), x2));
                _mm256_storeu_pd(c3, _mm256_add_pd(_mm256_loadu_pd(c3), x3));
            }
            for (; j < N; j++) /* the last N % 4 columns */
                for (Py_ssize_t rr = r; rr < r + 4; rr++) {
                    double s = 0;
                    for (Py_ssize_t m = m0; m < m1; m++)
                        s = __builtin_fma(A[m * lda + rr], G[m * ldg + j], s);
                    C[rr * N + j] += s;
                }
        }
        for (; r < K1; r++) /* the last K1 % 4 rows of C */
            for (Py_ssize_t j = 0; j < N; j++) {
                double s = 0;
                for (Py_ssize_t m = m0; m < m1; m++)
                    s = __builtin_fma(A[m * lda + r], G[m * ldg + j], s);
                C[r * N + j] += s;
            }
    }
}

/* float32: product_kernel's tiles 8 wide (4 x 16, 4 x 8, 4 x 4 accumulators). */
AVX2 static void product_kernel_f32(Py_ssize_t M, Py_ssize_t N, Py_ssize_t K, const float *A,
                                    Py_ssize_t lda, const float *B, float *C, Py_ssize_t ldc)
{
    Py_ssize_t i = 0;
    for (; i + 4 <= M; i += 4) {
        const float *a0 = A + i * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
        float *c0 = C + i * ldc, *c1 = c0 + ldc, *c2 = c1 + ldc, *c3 = c2 + ldc;
        Py_ssize_t j = 0;
        for (; j + 16 <= N; j += 16) {
            __m256 x00 = _mm256_setzero_ps(), x01 = _mm256_setzero_ps();
            __m256 x10 = _mm256_setzero_ps(), x11 = _mm256_setzero_ps();
            __m256 x20 = _mm256_setzero_ps(), x21 = _mm256_setzero_ps();
            __m256 x30 = _mm256_setzero_ps(), x31 = _mm256_setzero_ps();
            const float *b = B + j;
            for (Py_ssize_t k = 0; k < K; k++, b += N) {
                __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8), a;
                a = _mm256_broadcast_ss(a0 + k);
                x00 = _mm256_fmadd_ps(a, b0, x00);
                x01 = _mm256_fmadd_ps(a, b1, x01);
                a = _mm256_broadcast_ss(a1 + k);
                x10 = _mm256_fmadd_ps(a, b0, x10);
                x11 = _mm256_fmadd_ps(a, b1, x11);
                a = _mm256_broadcast_ss(a2 + k);
                x20 = _mm256_fmadd_ps(a, b0, x20);
                x21 = _mm256_fmadd_ps(a, b1, x21);
                a = _mm256_broadcast_ss(a3 + k);
                x30 = _mm256_fmadd_ps(a, b0, x30);
                x31 = _mm256_fmadd_ps(a, b1, x31);
            }
            _mm256_storeu_ps(c0 + j, x00);
            _mm256_storeu_ps(c0 + j + 8, x01);
            _mm256_storeu_ps(c1 + j, x10);
            _mm256_storeu_ps(c1 + j + 8, x11);
            _mm256_storeu_ps(c2 + j, x20);
            _mm256_storeu_ps(c2 + j + 8, x21);
            _mm256_storeu_ps(c3 + j, x30);
            _mm256_storeu_ps(c3 + j + 8, x31);
        }
        for (; j + 8 <= N; j += 8) {
            __m256 x0 = _mm256_setzero_ps(), x1 = _mm256_setzero_ps();
            __m256 x2 = _mm256_setzero_ps(), x3 = _mm256_setzero_ps();
            const float *b = B + j;
            for (Py_ssize_t k = 0; k < K; k++, b += N) {
                __m256 b0 = _mm256_loadu_ps(b);
                x0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + k), b0, x0);
                x1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + k), b0, x1);
                x2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + k), b0, x2);
                x3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + k), b0, x3);
            }
            _mm256_storeu_ps(c0 + j, x0);
            _mm256_storeu_ps(c1 + j, x1);
            _mm256_storeu_ps(c2 + j, x2);
            _mm256_storeu_ps(c3 + j, x3);
        }
        for (; j + 4 <= N; j += 4) {
            __m128 x0 = _mm_setzero_ps(), x1 = _mm_setzero_ps();
            __m128 x2 = _mm_setzero_ps(), x3 = _mm_setzero_ps();
            const float *b = B + j;
            for (Py_ssize_t k = 0; k < K; k++, b += N) {
                __m128 b0 = _mm_loadu_ps(b);
                x0 = _mm_fmadd_ps(_mm_broadcast_ss(a0 + k), b0, x0);
                x1 = _mm_fmadd_ps(_mm_broadcast_ss(a1 + k), b0, x1);
                x2 = _mm_fmadd_ps(_mm_broadcast_ss(a2 + k), b0, x2);
                x3 = _mm_fmadd_ps(_mm_broadcast_ss(a3 + k), b0, x3);
            }
            _mm_storeu_ps(c0 + j, x0);
            _mm_storeu_ps(c1 + j, x1);
            _mm_storeu_ps(c2 + j, x2);
            _mm_storeu_ps(c3 + j, x3);
        }
        for (; j < N; j++) { /* the last N % 4 columns */
            float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
            for (Py_ssize_t k = 0; k < K; k++) {
                float bk = B[k * N + j];
                s0 = __builtin_fmaf(a0[k], bk, s0);
                s1 = __builtin_fmaf(a1[k], bk, s1);
                s2 = __builtin_fmaf(a2[k], bk, s2);
                s3 = __builtin_fmaf(a3[k], bk, s3);
            }
            c0[j] = s0;
            c1[j] = s1;
            c2[j] = s2;
            c3[j] = s3;
        }
    }
    for (; i < M; i++) { /* the last M % 4 rows */
        const float *a0 = A + i * lda;
        float *c0 = C + i * ldc;
        for (Py_ssize_t j = 0; j < N; j++) {
            float s = 0.0f;
            for (Py_ssize_t k = 0; k < K; k++)
                s = __builtin_fmaf(a0[k], B[k * N + j], s);
            c0[j] = s;
        }
    }
}

/* float32: gram_kernel's tiles 8 wide (4 x 16, 4 x 8, 4 x 4 accumulators). */
AVX2 static void gram_kernel_f32(Py_ssize_t M, Py_ssize_t K1, Py_ssize_t N, const float *A,
                                 Py_ssize_t lda, const float *G, Py_ssize_t ldg, float *C)
{
    memset(C, 0, (size_t)(K1 * N) * sizeof(float));
    for (Py_ssize_t m0 = 0; m0 < M; m0 += CHUNK) {
        Py_ssize_t m1 = m0 + CHUNK < M ? m0 + CHUNK : M;
        Py_ssize_t r = 0;
        for (; r + 4 <= K1; r += 4) {
            Py_ssize_t j = 0;
            for (; j + 16 <= N; j += 16) {
                float *c0 = C + r * N + j, *c1 = c0 + N, *c2 = c1 + N, *c3 = c2 + N;
                __m256 x00 = _mm256_setzero_ps(), x01 = _mm256_setzero_ps();
                __m256 x10 = _mm256_setzero_ps(), x11 = _mm256_setzero_ps();
                __m256 x20 = _mm256_setzero_ps(), x21 = _mm256_setzero_ps();
                __m256 x30 = _mm256_setzero_ps(), x31 = _mm256_setzero_ps();
                GRAM_ROWS(float, {
                    __m256 g0 = _mm256_loadu_ps(g), g1 = _mm256_loadu_ps(g + 8), s;
                    s = _mm256_broadcast_ss(a);
                    x00 = _mm256_fmadd_ps(s, g0, x00);
                    x01 = _mm256_fmadd_ps(s, g1, x01);
                    s = _mm256_broadcast_ss(a + 1);
                    x10 = _mm256_fmadd_ps(s, g0, x10);
                    x11 = _mm256_fmadd_ps(s, g1, x11);
                    s = _mm256_broadcast_ss(a + 2);
                    x20 = _mm256_fmadd_ps(s, g0, x20);
                    x21 = _mm256_fmadd_ps(s, g1, x21);
                    s = _mm256_broadcast_ss(a + 3);
                    x30 = _mm256_fmadd_ps(s, g0, x30);
                    x31 = _mm256_fmadd_ps(s, g1, x31);
                })
                _mm256_storeu_ps(c0, _mm256_add_ps(_mm256_loadu_ps(c0), x00));
                _mm256_storeu_ps(c0 + 8, _mm256_add_ps(_mm256_loadu_ps(c0 + 8), x01));
                _mm256_storeu_ps(c1, _mm256_add_ps(_mm256_loadu_ps(c1), x10));
                _mm256_storeu_ps(c1 + 8, _mm256_add_ps(_mm256_loadu_ps(c1 + 8), x11));
                _mm256_storeu_ps(c2, _mm256_add_ps(_mm256_loadu_ps(c2), x20));
                _mm256_storeu_ps(c2 + 8, _mm256_add_ps(_mm256_loadu_ps(c2 + 8), x21));
                _mm256_storeu_ps(c3, _mm256_add_ps(_mm256_loadu_ps(c3), x30));
                _mm256_storeu_ps(c3 + 8, _mm256_add_ps(_mm256_loadu_ps(c3 + 8), x31));
            }
            for (; j + 8 <= N; j += 8) {
                float *c0 = C + r * N + j, *c1 = c0 + N, *c2 = c1 + N, *c3 = c2 + N;
                __m256 x0 = _mm256_setzero_ps(), x1 = _mm256_setzero_ps();
                __m256 x2 = _mm256_setzero_ps(), x3 = _mm256_setzero_ps();
                GRAM_ROWS(float, {
                    __m256 g0 = _mm256_loadu_ps(g);
                    x0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a), g0, x0);
                    x1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 1), g0, x1);
                    x2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 2), g0, x2);
                    x3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 3), g0, x3);
                })
                _mm256_storeu_ps(c0, _mm256_add_ps(_mm256_loadu_ps(c0), x0));
                _mm256_storeu_ps(c1, _mm256_add_ps(_mm256_loadu_ps(c1), x1));
                _mm256_storeu_ps(c2, _mm256_add_ps(_mm256_loadu_ps(c2), x2));
                _mm256_storeu_ps(c3, _mm256_add_ps(_mm256_loadu_ps(c3), x3));
            }
            for (; j + 4 <= N; j += 4) {
                float *c0 = C + r * N + j, *c1 = c0 + N, *c2 = c1 + N, *c3 = c2 + N;
                __m128 x0 = _mm_setzero_ps(), x1 = _mm_setzero_ps();
                __m128 x2 = _mm_setzero_ps(), x3 = _mm_setzero_ps();
                GRAM_ROWS(float, {
                    __m128 g0 = _mm_loadu_ps(g);
                    x0 = _mm_fmadd_ps(_mm_broadcast_ss(a), g0, x0);
                    x1 = _mm_fmadd_ps(_mm_broadcast_ss(a + 1), g0, x1);
                    x2 = _mm_fmadd_ps(_mm_broadcast_ss(a + 2), g0, x2);
                    x3 = _mm_fmadd_ps(_mm_broadcast_ss(a + 3), g0, x3);
                })
                _mm_storeu_ps(c0, _mm_add_ps(_mm_loadu_ps(c0), x0));
                _mm_storeu_ps(c1, _mm_add_ps(_mm_loadu_ps(c1), x1));
                _mm_storeu_ps(c2, _mm_add_ps(_mm_loadu_ps(c2), x2));
                _mm_storeu_ps(c3, _mm_add_ps(_mm_loadu_ps(c3), x3));
            }
            for (; j < N; j++) /* the last N % 4 columns */
                for (Py_ssize_t rr = r; rr < r + 4; rr++) {
                    float s = 0;
                    for (Py_ssize_t m = m0; m < m1; m++)
                        s = __builtin_fmaf(A[m * lda + rr], G[m * ldg + j], s);
                    C[rr * N + j] += s;
                }
        }
        for (; r < K1; r++) /* the last K1 % 4 rows of C */
            for (Py_ssize_t j = 0; j < N; j++) {
                float s = 0;
                for (Py_ssize_t m = m0; m < m1; m++)
                    s = __builtin_fmaf(A[m * lda + r], G[m * ldg + j], s);
                C[r * N + j] += s;
            }
    }
}

static int cpu_supports_kernels(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

#else

static int cpu_supports_kernels(void) { return 0; }

#endif /* THIN_KERNELS */

static int kernels_run_here; /* the CPU has AVX2 and FMA: read once, at import */

/* A float64 or float32 matrix's buffer, with unit strides along its rows unless
 * ``any_strides`` (then whole items apart): 0; 1 where the array is not one (nothing held:
 * the caller declines); -1 where it has no buffer (an error set). */
static int matrix_view(PyObject *obj, Py_buffer *view, int writable, int any_strides)
{
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0)
        return -1;
    const char *format = view->format ? view->format : "B";
    Py_ssize_t item = view->itemsize;
    int type_ok = (item == 8 && strcmp(format, "d") == 0) ||
                  (item == 4 && strcmp(format, "f") == 0);
    int rows_ok = view->ndim == 2 && (any_strides ? view->strides[1] % item == 0
                                                  : view->strides[1] == item);
    if (!type_ok || !rows_ok || view->strides[0] % item != 0) {
        PyBuffer_Release(view);
        return 1;
    }
    return 0;
}

/* The three operands' buffers into ``views``: 0; 1 where one declined (matrix_view), -1 on
 * an error (set); with nothing held but on 0. */
static int three_views(PyObject *const *args, Py_ssize_t nargs, Py_buffer *views,
                       int b_any_strides, const char *signature)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "_thin_gemm.%s takes 3 arrays", signature);
        return -1;
    }
    for (int have = 0; have < 3; have++) {
        int got = matrix_view(args[have], &views[have], have == 2, have == 1 && b_any_strides);
        if (got != 0) {
            for (int i = 0; i < have; i++)
                PyBuffer_Release(&views[i]);
            return got;
        }
    }
    if (views[1].itemsize != views[0].itemsize || views[2].itemsize != views[0].itemsize) {
        for (int i = 0; i < 3; i++) /* mixed dtypes: NumPy's products promote them */
            PyBuffer_Release(&views[i]);
        return 1;
    }
    return 0;
}

static PyObject *release_all(Py_buffer *views, int n, PyObject *result)
{
    for (int i = 0; i < n; i++)
        PyBuffer_Release(&views[i]);
    return result;
}

/* product(a, b, out): out = a @ b, a (M, K), b (K, N), out (M, N) not overlapping them;
 * K, N <= MAX_WIDTH. True, or False where the operands are not float64 or float32
 * matrices of one dtype with contiguous rows (b: any strides), nothing written. */
static PyObject *product(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer views[3];
    int got = three_views(args, nargs, views, 1, "product(a, b, out)");
    if (got < 0)
        return NULL;
    if (got > 0)
        Py_RETURN_FALSE;
    Py_ssize_t M = views[0].shape[0], K = views[0].shape[1], N = views[1].shape[1];
    if (views[1].shape[0] != K || views[2].shape[0] != M || views[2].shape[1] != N ||
        K > MAX_WIDTH || N > MAX_WIDTH || !kernels_run_here) {
        PyErr_SetString(PyExc_ValueError,
                        "_thin_gemm.product: shapes must be (M, K) @ (K, N) into (M, N), "
                        "K and N at most 64, on a CPU with AVX2 and FMA");
        return release_all(views, 3, NULL);
    }
#if THIN_KERNELS
    Py_ssize_t item = views[0].itemsize;
    Py_ssize_t lda = views[0].strides[0] / item, ldc = views[2].strides[0] / item;
    Py_ssize_t ldb = views[1].strides[0] / item, step = views[1].strides[1] / item;
    if (item == 8) {
        double narrow[MAX_WIDTH * MAX_WIDTH]; /* b, C-contiguous (it may come transposed) */
        const double *b = views[1].buf;
        for (Py_ssize_t k = 0; k < K; k++)
            for (Py_ssize_t j = 0; j < N; j++)
                narrow[k * N + j] = b[k * ldb + j * step];
        Py_BEGIN_ALLOW_THREADS;
        product_kernel(M, N, K, views[0].buf, lda, narrow, views[2].buf, ldc);
        Py_END_ALLOW_THREADS;
    } else {
        float narrow[MAX_WIDTH * MAX_WIDTH];
        const float *b = views[1].buf;
        for (Py_ssize_t k = 0; k < K; k++)
            for (Py_ssize_t j = 0; j < N; j++)
                narrow[k * N + j] = b[k * ldb + j * step];
        Py_BEGIN_ALLOW_THREADS;
        product_kernel_f32(M, N, K, views[0].buf, lda, narrow, views[2].buf, ldc);
        Py_END_ALLOW_THREADS;
    }
#endif
    Py_INCREF(Py_True);
    return release_all(views, 3, Py_True);
}

/* gram(a, g, out): out = a^T g, a (M, K1), g (M, N), out (K1, N) C-contiguous, not
 * overlapping them. True, or False where the operands are not float64 or float32
 * matrices of one dtype with contiguous rows, nothing written. */
static PyObject *gram(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer views[3];
    int got = three_views(args, nargs, views, 0, "gram(a, g, out)");
    if (got < 0)
        return NULL;
    if (got > 0)
        Py_RETURN_FALSE;
    Py_ssize_t M = views[0].shape[0], K1 = views[0].shape[1], N = views[1].shape[1];
    if (views[1].shape[0] != M || views[2].shape[0] != K1 || views[2].shape[1] != N ||
        views[2].strides[0] != N * views[2].itemsize || !kernels_run_here) {
        PyErr_SetString(PyExc_ValueError,
                        "_thin_gemm.gram: shapes must be (M, K1)^T (M, N) into a C-contiguous "
                        "(K1, N), on a CPU with AVX2 and FMA");
        return release_all(views, 3, NULL);
    }
#if THIN_KERNELS
    Py_ssize_t item = views[0].itemsize;
    Py_ssize_t lda = views[0].strides[0] / item, ldg = views[1].strides[0] / item;
    Py_BEGIN_ALLOW_THREADS;
    if (item == 8)
        gram_kernel(M, K1, N, views[0].buf, lda, views[1].buf, ldg, views[2].buf);
    else
        gram_kernel_f32(M, K1, N, views[0].buf, lda, views[1].buf, ldg, views[2].buf);
    Py_END_ALLOW_THREADS;
#endif
    Py_INCREF(Py_True);
    return release_all(views, 3, Py_True);
}

static PyMethodDef methods[] = {
    {"product", (PyCFunction)(void (*)(void))product, METH_FASTCALL,
     "product(a, b, out): out = a @ b, float64 or float32, a's rows contiguous, b at most "
     "64 x 64, out a fresh array; False where the layout is not one it takes."},
    {"gram", (PyCFunction)(void (*)(void))gram, METH_FASTCALL,
     "gram(a, g, out): out = a.T @ g, float64 or float32, rows contiguous, out a fresh "
     "C-contiguous array; False where the layout is not one it takes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_thin_gemm",
    "float64 and float32 products of a PINN layer's tall, thin shapes (AVX2 and FMA; see _gemm).",
    -1,
    methods,
};

PyMODINIT_FUNC PyInit__thin_gemm(void)
{
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    kernels_run_here = cpu_supports_kernels();
    if (PyModule_AddIntConstant(module, "AVAILABLE", kernels_run_here) < 0 ||
        PyModule_AddIntConstant(module, "MAX_WIDTH", MAX_WIDTH) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
