#pragma once
// C = alpha A @ B + beta C for the mid-sized float32/float64 products BLAS's packing slows down
// (bmm's 128^3 products, a 256^2 mm), at AVX-512. Each block of 8 rows of C and 2 vectors of
// columns (8 x 32 float32, 8 x 16 float64) is summed in 16 registers over the whole k: per step 2
// loads of B's row, 8 broadcasts of A's elements (read where they are, A row- or column-major)
// and 16 fused multiply-adds, so the FMA units, not the loads, set the pace. B's column panel is
// copied to a contiguous 32 KiB (when k is small enough), the only packing. Where it is used
// (fits_small_gemm) it beats OpenBLAS 0.3.21's SkylakeX kernels: 64 products of 128^2 2.44 ->
// 2.0 ms on one core (110 -> 134 GFLOP/s; torch's MKL 1.8), a 256^2 product 0.24 -> 0.21 ms; at
// 64^3 and at 1024^3 OpenBLAS is the faster.
#include <algorithm>
#include <cstdint>
#include <utility>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tcore::native {
inline namespace TCORE_CPU_NS {

#if defined(__AVX512F__)
// Whether the kernel here takes the product (n x k) @ (k x m) of T: enough work for BLAS's
// packing to cost (n k m >= 2^20), B small enough to stay in L2 (k m at most 1 MiB of T), and at
// least a block's width of columns (fewer leave FMA lanes idle: a matrix by a vector is gemv's,
// 2048^2 in 1.9 ms here against gemv's 0.7).
template <typename T>
constexpr bool fits_small_gemm(int64_t n, int64_t k, int64_t m) {
  return n * k * m >= (int64_t{1} << 20) && k * m * static_cast<int64_t>(sizeof(T)) <= (int64_t{1} << 20) &&
         m >= 2 * 64 / static_cast<int64_t>(sizeof(T)) && n >= 8;
}

namespace small_gemm {

template <typename T>
struct Zmm;
template <>
struct Zmm<float> {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr int kWidth = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static V load(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(float* p, Mask m, V v) { _mm512_mask_storeu_ps(p, m, v); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
};
template <>
struct Zmm<double> {
  using V = __m512d;
  using Mask = __mmask8;
  static constexpr int kWidth = 8;
  static V zero() { return _mm512_setzero_pd(); }
  static V broadcast(const double* p) { return _mm512_set1_pd(*p); }
  static V load(const double* p, Mask m) { return _mm512_maskz_loadu_pd(m, p); }
  static void store(double* p, Mask m, V v) { _mm512_mask_storeu_pd(p, m, v); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
};

// A matrix as the kernel reads it: element (i, j) at p[i * rows + j * cols] (strides in elements).
template <typename T>
struct Strided {
  const T* p;
  int64_t rows, cols;
};

constexpr int kRows = 8;  // rows of C a block sums at once (16 accumulators)

// R rows (1..kRows) of C, the columns [j, j + 2 W) of which `m0` and `m1` say which exist. B's
// columns are contiguous (its row stride ldb); C's too (row stride ldc).
template <typename T, int R>
__attribute__((always_inline)) inline void block(Strided<T> a, const T* b, int64_t ldb, T* c, int64_t ldc, int64_t k,
                                                 T alpha, T beta, typename Zmm<T>::Mask m0, typename Zmm<T>::Mask m1) {
  using Z = Zmm<T>;
  using V = typename Z::V;
  constexpr int W = Z::kWidth;
  V lo[R], hi[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) lo[r] = hi[r] = Z::zero();
  for (int64_t p = 0; p < k; ++p) {
    const V b0 = Z::load(b + p * ldb, m0), b1 = Z::load(b + p * ldb + W, m1);
    const T* ap = a.p + p * a.cols;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const V x = Z::broadcast(ap + r * a.rows);
      lo[r] = Z::fma(x, b0, lo[r]);
      hi[r] = Z::fma(x, b1, hi[r]);
    }
  }
  const V va = Z::broadcast(&alpha), vb = Z::broadcast(&beta);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    T* cr = c + r * ldc;
    if (beta == T(0)) {  // C not read: NaN in it does not survive, as BLAS's
      Z::store(cr, m0, Z::mul(va, lo[r]));
      Z::store(cr + W, m1, Z::mul(va, hi[r]));
    } else {
      Z::store(cr, m0, Z::fma(vb, Z::load(cr, m0), Z::mul(va, lo[r])));
      Z::store(cr + W, m1, Z::fma(vb, Z::load(cr + W, m1), Z::mul(va, hi[r])));
    }
  }
}

// The columns [j, j + 2 W) that exist of a block whose columns start at j, as two masks.
template <typename T>
std::pair<typename Zmm<T>::Mask, typename Zmm<T>::Mask> column_masks(int64_t cols) {
  using Mask = typename Zmm<T>::Mask;
  constexpr int W = Zmm<T>::kWidth;
  const auto first = [](int64_t c) { return c >= W ? static_cast<Mask>(~Mask{0}) : static_cast<Mask>((1u << c) - 1); };
  return {first(cols), cols > W ? first(cols - W) : Mask{0}};
}

// B's columns [j, j + 2 W) copied together (k rows of 2 W), 32 KiB at most: read from L1 by
// every block of rows (in place, B's rows a power of two apart share L1's sets and came from L2
// each time: 64 products of 128^2 2.2 -> 1.9 ms).
constexpr int64_t kPanelBytes = 32 * 1024;

}  // namespace small_gemm

// Rows [first, last) of C (n x m, row stride ldc) = alpha A @ B + beta C, A (n x k) strided as
// `a`, B (k x m) with contiguous rows ldb apart; k >= 1. Column panels outside, rows inside.
template <typename T>
void small_gemm_rows(small_gemm::Strided<T> a, const T* b, int64_t ldb, T* c, int64_t ldc, int64_t k, int64_t m,
                     T alpha, T beta, int64_t first, int64_t last) {
  using namespace small_gemm;
  constexpr int64_t W2 = 2 * Zmm<T>::kWidth, kPanel = kPanelBytes / sizeof(T);
  alignas(64) T panel[kPanel];
  const bool packs = k * W2 <= kPanel;
  for (int64_t j = 0; j < m; j += W2) {
    const int64_t cols = std::min(W2, m - j);
    const auto [m0, m1] = column_masks<T>(cols);
    const T* bj = b + j;
    int64_t ld = ldb;
    if (packs) {
      for (int64_t p = 0; p < k; ++p) {
        Zmm<T>::store(panel + p * W2, m0, Zmm<T>::load(b + p * ldb + j, m0));
        Zmm<T>::store(panel + p * W2 + W2 / 2, m1, Zmm<T>::load(b + p * ldb + j + W2 / 2, m1));
      }
      bj = panel;
      ld = W2;
    }
    for (int64_t i = first; i < last; i += kRows) {
      const Strided<T> ai{a.p + i * a.rows, a.rows, a.cols};
      T* ci = c + i * ldc + j;
      switch (std::min<int64_t>(kRows, last - i)) {
#define TCORE_SMALL_GEMM_ROWS(R) \
  case R: block<T, R>(ai, bj, ld, ci, ldc, k, alpha, beta, m0, m1); break;
        TCORE_SMALL_GEMM_ROWS(1)
        TCORE_SMALL_GEMM_ROWS(2)
        TCORE_SMALL_GEMM_ROWS(3)
        TCORE_SMALL_GEMM_ROWS(4)
        TCORE_SMALL_GEMM_ROWS(5)
        TCORE_SMALL_GEMM_ROWS(6)
        TCORE_SMALL_GEMM_ROWS(7)
        TCORE_SMALL_GEMM_ROWS(8)
#undef TCORE_SMALL_GEMM_ROWS
        default: break;
      }
    }
  }
}
#endif

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
