// mm, bmm and addmm: float32/float64 through OpenBLAS's sgemm/dgemm when the build found it
// (operands given as they are laid out: row-major, or transposed views without a copy; addmm's
// alpha and beta as BLAS's), the mid-sized products at AVX-512 through SmallGemm.h's unpacked
// kernel, which is faster there; otherwise, and for the other dtypes, a packed, register-blocked loop
// over contiguous operands, panels across threads. bmm's products go to threads whole (each a
// single-threaded BLAS call) when there are enough of them and they are small; a few large ones
// run one after the other, each threaded.
// OpenBLAS's OpenMP build shares tcore's threads (CMakeLists.txt prefers it); with its pthreads
// build the two pools take turns.
#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <type_traits>

#include <tcore/ops/addmm_native.h>
#include <tcore/ops/bmm_native.h>
#include <tcore/ops/mm_native.h>

#include "native/TensorUtils.h"
#include "native/onednn/Matmul.h"
#include "native/cpu/LinearAlgebra.h"
#include "native/cpu/Copy.h"
#include "native/cpu/IntoOutput.h"
#include "native/cpu/Parallel.h"
#include "native/cpu/SmallGemm.h"
#include "tcore_build_config.h"  // TCORE_HAVE_BLAS, TCORE_BLAS_OPENMP (CMakeLists.txt)

#if TCORE_HAVE_BLAS
extern "C" {  // the Fortran BLAS interface (column-major), as every BLAS exports it
void sgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
            const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c, const int* ldc);
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc);
void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a, const int* lda,
            const float* x, const int* incx, const float* beta, float* y, const int* incy);
void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* lda,
            const double* x, const int* incx, const double* beta, double* y, const int* incy);
void openblas_set_num_threads(int n) __attribute__((weak));  // OpenBLAS's own: its threads follow tcore's
}
#endif

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// C (n x m) = alpha * A (n x k) @ B (k x m) + beta * C, all contiguous; beta 0: C is not read.
//
// For each panel of NR columns, B's panel is packed into a contiguous k x NR buffer;
// then each MR x NR block of C is accumulated in a local array (registers, once the
// compiler vectorizes the NR loop) over the whole k: one broadcast of A and one vector
// load of B feed MR fused multiply-adds; panels go to threads. The last columns, fewer than
// NR, are a plain loop, rows to threads.
template <typename T>
void gemm(const T* A, const T* B, T* C, int64_t n, int64_t k, int64_t m, T alpha, T beta) {
  // the one place a sum reaches C
  const auto store = [alpha, beta](T& c, T acc) {
    c = beta == T(0) ? static_cast<T>(alpha * acc) : static_cast<T>(alpha * acc + beta * c);
  };
  constexpr int64_t MR = 4;
  constexpr int64_t NR = 64 / sizeof(T) * 2;  // two 64-byte vectors per row of the block
  const int64_t panels = m / NR;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n * k, 1));
  parallel_for(0, panels, grain, [&](int64_t first, int64_t last) {
    std::unique_ptr<T[]> packed(new T[static_cast<size_t>(k * NR)]);
    for (int64_t panel = first; panel < last; ++panel) {
      const int64_t j0 = panel * NR;
      for (int64_t p = 0; p < k; ++p)
        for (int64_t c = 0; c < NR; ++c) packed[p * NR + c] = B[p * m + j0 + c];
      int64_t i0 = 0;
      for (; i0 + MR <= n; i0 += MR) {
        T acc[MR][NR] = {};
        const T* a = A + i0 * k;
        for (int64_t p = 0; p < k; ++p) {
          const T* b = packed.get() + p * NR;
          for (int64_t r = 0; r < MR; ++r) {
            const T av = a[r * k + p];
            for (int64_t c = 0; c < NR; ++c) acc[r][c] = static_cast<T>(acc[r][c] + av * b[c]);
          }
        }
        for (int64_t r = 0; r < MR; ++r)
          for (int64_t c = 0; c < NR; ++c) store(C[(i0 + r) * m + j0 + c], acc[r][c]);
      }
      for (; i0 < n; ++i0) {
        T acc[NR] = {};
        for (int64_t p = 0; p < k; ++p) {
          const T av = A[i0 * k + p];
          for (int64_t c = 0; c < NR; ++c) acc[c] = static_cast<T>(acc[c] + av * packed[p * NR + c]);
        }
        for (int64_t c = 0; c < NR; ++c) store(C[i0 * m + j0 + c], acc[c]);
      }
    }
  });
  const int64_t j0 = panels * NR;
  if (j0 < m) {  // the last columns, fewer than NR: rows go to threads
    const int64_t grain2 = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(k * (m - j0), 1));
    parallel_for(0, n, grain2, [&](int64_t first, int64_t last) {
      std::unique_ptr<T[]> acc(new T[static_cast<size_t>(m - j0)]);
      for (int64_t i = first; i < last; ++i) {
        std::fill(acc.get(), acc.get() + (m - j0), T(0));
        for (int64_t p = 0; p < k; ++p) {
          const T av = A[i * k + p];
          const T* b = B + p * m + j0;
          for (int64_t j = 0; j < m - j0; ++j) acc[j] = static_cast<T>(acc[j] + av * b[j]);
        }
        for (int64_t j = j0; j < m; ++j) store(C[i * m + j], acc[j - j0]);
      }
    });
  }
}

// The sizes of self @ mat2: two matrices (n x k, k x m), or two batches of as many.
struct Products {
  bool batched;
  int64_t batch, n, k, m;
};
Products products_of(const Tensor& self, const Tensor& mat2) {
  const int64_t d = self.dim();
  return {d == 3, d == 3 ? self.sizes()[0] : 1, self.sizes()[d - 2], self.sizes()[d - 1], mat2.sizes()[d - 1]};
}

#if TCORE_HAVE_BLAS
// How BLAS sees a matrix (r x c) with strides (sr, sc): row-major is its transpose in column-major
// ('N' for X^T, leading dimension sr); column-major is itself ('T' for X^T, leading dimension sc).
struct BlasOperand {
  char trans;
  int ld;
};
std::optional<BlasOperand> blas_layout(int64_t r, int64_t c, int64_t sr, int64_t sc) {
  if ((sc == 1 || c == 1) && sr >= std::max<int64_t>(1, c) && sr <= INT_MAX) return BlasOperand{'N', static_cast<int>(sr)};
  if ((sr == 1 || r == 1) && sc >= std::max<int64_t>(1, r) && sc <= INT_MAX) return BlasOperand{'T', static_cast<int>(sc)};
  return std::nullopt;
}

// The last two dims of x (a matrix, or a batch of them) as BLAS takes them: x itself when it can,
// else a row-major copy.
struct BlasMatrix {
  Tensor t;
  BlasOperand op;
};
BlasMatrix blas_matrix(const Tensor& x) {
  const int64_t d = x.dim();
  const int64_t r = x.sizes()[d - 2], c = x.sizes()[d - 1];
  if (auto op = blas_layout(r, c, x.strides()[d - 2], x.strides()[d - 1])) return {x, *op};
  return {contiguous_copy(x), BlasOperand{'N', static_cast<int>(std::max<int64_t>(c, 1))}};
}

// y = alpha op(M) x + beta y, M column-major (rows x cols, leading dimension ld), y contiguous
template <typename T>
void blas_gemv(char trans, int rows, int cols, const T* M, int ld, const T* x, int incx, T* y, T alpha, T beta) {
  const int inc1 = 1;
  ld = std::max(ld, std::max(rows, 1));
  if constexpr (std::is_same_v<T, float>) {
    sgemv_(&trans, &rows, &cols, &alpha, M, &ld, x, &incx, &beta, y, &inc1);
  } else {
    dgemv_(&trans, &rows, &cols, &alpha, M, &ld, x, &incx, &beta, y, &inc1);
  }
}

// C (n x m, row-major, leading dimension m) = alpha A (n x k) @ B (k x m) + beta C by the
// column-major product C^T = B^T A^T.
template <typename T>
void blas_gemm(const T* a, BlasOperand la, const T* b, BlasOperand lb, T* c, int n, int k, int m, T alpha, T beta) {
  const int lda = std::max(la.ld, 1), ldb = std::max(lb.ld, 1);
  // a matrix by a vector through gemv: gemm packed the whole matrix for one column (mv of 2048²
  // float32 3.8x torch's)
  if (m == 1) {  // C (n) = A b, b's elements ldb apart ('N') or adjacent
    const int incb = lb.trans == 'N' ? ldb : 1;
    if (la.trans == 'N') blas_gemv<T>('T', k, n, a, lda, b, incb, c, alpha, beta);
    else blas_gemv<T>('N', n, k, a, lda, b, incb, c, alpha, beta);
    return;
  }
  if (n == 1) {  // C (m) = a B, a's elements adjacent ('N') or lda apart
    const int inca = la.trans == 'N' ? 1 : lda;
    if (lb.trans == 'N') blas_gemv<T>('N', m, k, b, ldb, a, inca, c, alpha, beta);
    else blas_gemv<T>('T', k, m, b, ldb, a, inca, c, alpha, beta);
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    sgemm_(&lb.trans, &la.trans, &m, &n, &k, &alpha, b, &ldb, a, &lda, &beta, c, &m);
  } else {
    dgemm_(&lb.trans, &la.trans, &m, &n, &k, &alpha, b, &ldb, a, &lda, &beta, c, &m);
  }
}

#if TCORE_BLAS_OPENMP
// OpenBLAS's OpenMP build: a call takes as many threads as its caller's OpenMP setting (one
// inside a parallel region), from the pool tcore's kernels use.
template <typename F>
void with_blas_threads(int threads, const F& f) {
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
  f();
}
#else
// OpenBLAS's pthreads build: its thread count is one setting for the process, and f runs with it
// at `threads`. Callers at the count already set share the lock; changing it waits for them.
std::shared_mutex blas_threads_mutex;
int blas_threads = 0;  // guarded by blas_threads_mutex
template <typename F>
void with_blas_threads(int threads, const F& f) {
  if (openblas_set_num_threads == nullptr) {  // another BLAS: its own rule
    f();
    return;
  }
  {
    std::shared_lock<std::shared_mutex> shared(blas_threads_mutex);
    if (blas_threads == threads) {
      f();
      return;
    }
  }
  std::unique_lock<std::shared_mutex> exclusive(blas_threads_mutex);
  if (blas_threads != threads) {
    openblas_set_num_threads(threads);
    blas_threads = threads;
  }
  f();
}
#endif

bool fits_blas_int(int64_t n, int64_t k, int64_t m) { return n <= INT_MAX && k <= INT_MAX && m <= INT_MAX; }

// The first elements of a batch of products' operands and result, and the operands' batch strides
template <typename T>
struct Operands {
  const T* a;
  const T* b;
  T* c;
  int64_t sa, sb;
};
template <typename T>
Operands<T> operands_of(const BlasMatrix& a, const BlasMatrix& b, const Tensor& out, const Products& s) {
  return {a.t.template data_ptr<T>(), b.t.template data_ptr<T>(), out.template data_ptr<T>(),
          s.batched ? a.t.strides()[0] : 0, s.batched ? b.t.strides()[0] : 0};
}

#if defined(__AVX512F__)
// The products through SmallGemm.h's kernel into a contiguous out, across threads (a 256^2 mm on
// two threads as well as bmm's products); B row-major.
template <typename T>
void small_products(const BlasMatrix& a, const BlasMatrix& b, const Tensor& out, const Products& s, T alpha, T beta) {
  const int64_t n = s.n, k = s.k, m = s.m;
  const Operands<T> p = operands_of<T>(a, b, out, s);
  const int64_t ld = a.op.ld, rows = a.op.trans == 'N' ? ld : 1, cols = a.op.trans == 'N' ? 1 : ld;
  // a thread's share: whole products, or a product's rows in as many parts as make one per thread
  // (each part copies B's column panels for itself)
  const int64_t threads = get_num_threads();
  const int64_t parts = s.batch >= threads ? 1 : (threads + s.batch - 1) / s.batch;
  const int64_t rows_per_part = (n + parts - 1) / parts;
  parallel_for(0, s.batch * parts, 1, [&](int64_t first, int64_t last) {
    for (int64_t u = first; u < last; ++u) {
      const int64_t i = u / parts, row = (u % parts) * rows_per_part;
      small_gemm_rows<T>({p.a + i * p.sa, rows, cols}, p.b + i * p.sb, b.op.ld, p.c + i * n * m, m, k, m, alpha, beta, row,
                         std::min(n, row + rows_per_part));
    }
  });
}
#endif

// self @ mat2 through BLAS into a contiguous out; false when the sizes do not fit BLAS's int or
// one of them is 0.
template <typename T>
bool blas_products(const Tensor& self, const Tensor& mat2, const Tensor& out, const Products& s, T alpha, T beta) {
  const int64_t batch = s.batch, n = s.n, k = s.k, m = s.m;
  if (!fits_blas_int(n, k, m) || n == 0 || m == 0 || k == 0) return false;
  const BlasMatrix a = blas_matrix(self), b = blas_matrix(mat2);
#if defined(__AVX512F__)
  if (fits_small_gemm<T>(n, k, m)) {
    small_products(a, b.op.trans == 'N' ? b : BlasMatrix{contiguous_copy(b.t), {'N', static_cast<int>(m)}}, out, s,
                   alpha, beta);
    return true;
  }
#endif
  const Operands<T> p = operands_of<T>(a, b, out, s);
  const auto products = [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i)
      blas_gemm<T>(p.a + i * p.sa, a.op, p.b + i * p.sb, b.op, p.c + i * n * m, static_cast<int>(n), static_cast<int>(k),
                   static_cast<int>(m), alpha, beta);
  };
  // Whole products per thread when every thread gets its share (a few large products would leave
  // threads idle: those run one after the other, BLAS threading each).
  const int64_t threads = get_num_threads();
  const bool small = static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(m) <= double(1 << 27);
  const bool by_product = threads > 1 && (batch % threads == 0 || batch >= 4 * threads) && small;
  if (by_product) {
#if TCORE_BLAS_OPENMP
    parallel_for(0, batch, 1, products);  // each call on its own thread
#else
    with_blas_threads(1, [&] { parallel_for(0, batch, 1, products); });
#endif
  } else {
    with_blas_threads(static_cast<int>(threads), [&] { products(0, batch); });
  }
  return true;
}
#endif

// out = alpha * products + beta * out, elementwise over contiguous tensors: `products` float32,
// out of a reduced float dtype, rounded once; beta 0: out is not read.
void scale_into(const Tensor& out, const Tensor& products, float alpha, float beta) {
  const float* p = products.data_ptr<float>();
  const auto run = [&](auto* o) {
    using T = std::remove_pointer_t<decltype(o)>;
    parallel_for(0, out.numel(), kGrainSize, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i)
        o[i] = T(beta == 0.0f ? alpha * p[i] : alpha * p[i] + beta * static_cast<float>(o[i]));
    });
  };
  if (out.dtype() == ScalarType::BFloat16) run(out.data_ptr<BFloat16>());
  else run(out.data_ptr<Half>());
}

// alpha 0 in float32/float64: BLAS's rule, the operands not read (inf in them gives no NaN), as
// torch's; the other dtypes multiply (0 * inf is NaN, as torch's float16/bfloat16).
template <typename T>
bool scaled_only(const Tensor& out, T alpha, T beta) {
  if (alpha != T(0)) return false;
  T* o = out.data_ptr<T>();
  for (int64_t i = 0; i < out.numel(); ++i) o[i] = beta == T(0) ? T(0) : static_cast<T>(beta * o[i]);
  return true;
}

}  // namespace

void products_into(const Tensor& self, const Tensor& mat2, const Tensor& out, const Scalar& alpha,
                   const Scalar& beta) {
  if (is_reduced_float(self.dtype())) {
    const float a = static_cast<float>(alpha.to_double()), b = static_cast<float>(beta.to_double());
    if (onednn::reduced_float_matmul(self, mat2, out, a, b)) return;  // bfloat16 kernels where the CPU has them
    const Tensor wide = empty_cpu(out.sizes(), ScalarType::Float);
    products_into(cast(self, ScalarType::Float), cast(mat2, ScalarType::Float), wide);
    if (a == 1.0f && b == 0.0f) copy_kernel(out, wide);
    else scale_into(out, wide, a, b);
    return;
  }
  const Products s = products_of(self, mat2);
  if (self.dtype() == ScalarType::Float && scaled_only(out, alpha.to<float>(), beta.to<float>())) return;
  if (self.dtype() == ScalarType::Double && scaled_only(out, alpha.to<double>(), beta.to<double>()))
    return;
#if TCORE_HAVE_BLAS
  if (self.dtype() == ScalarType::Float &&
      blas_products<float>(self, mat2, out, s, alpha.to<float>(), beta.to<float>()))
    return;
  if (self.dtype() == ScalarType::Double &&
      blas_products<double>(self, mat2, out, s, alpha.to<double>(), beta.to<double>()))
    return;
#endif
  const Tensor a = contiguous_copy(self), b = contiguous_copy(mat2);
  dispatch_numeric(self.dtype(), s.batched ? "bmm" : "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < s.batch; ++i)
      gemm<T>(a.template data_ptr<T>() + i * s.n * s.k, b.template data_ptr<T>() + i * s.k * s.m,
              out.template data_ptr<T>() + i * s.n * s.m, s.n, s.k, s.m, alpha.to<T>(), beta.to<T>());
  });
}

// The impls of the structured mm.out and bmm.out (their meta functions, with the checks:
// native/LinearAlgebra.cpp); an out that is strided or aliases an operand gets the product through
// a fresh tensor.
TCORE_IMPL_FUNC(mm_out)(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  into_output(out, out.dtype(), {self, mat2}, [&](const Tensor& result) { products_into(self, mat2, result); });
}

TCORE_IMPL_FUNC(bmm_out)(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  into_output(out, out.dtype(), {self, mat2}, [&](const Tensor& result) { products_into(self, mat2, result); });
}

// self broadcast into the result, then the products added onto it (BLAS's beta, oneDNN's sum
// post-op): one rounding for float16/bfloat16.
TCORE_IMPL_FUNC(addmm_out)(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                           const Scalar& alpha, const Tensor& out) {
  into_addmm_output(out, self, mat1, mat2, beta, [&](const Tensor& result, const Scalar& b) {
    products_into(mat1, mat2, result, alpha, b);
  });
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
