// torch.linalg's factorizations on the CPU through LAPACK (OpenBLAS carries it): inv (getrf,
// getri), the solve of square systems (getrf, then lu_solve's), det and slogdet (getrf), cholesky
// (potrf), eigh (syevd), svd (gesdd), qr and geqrf (gelqf, orglq), lu_factor (getrf) and lu_solve (trsm, trsv),
// lstsq (gels, gelsy, gelsd, gelss), the solve of triangular systems (trsm, trsv), for a
// matrix or a batch of them, float32 and float64, with torch's checks and messages; a matrix the
// factorization cannot take raises tcore::LinAlgError (torch.linalg.LinAlgError).
// Built without OpenBLAS, they raise.
//
// LAPACK is column-major: a row-major matrix is its transpose there. inv and det do not mind (the
// inverse of the transpose, read back row-major, is the inverse; the determinants are equal);
// lu_solve and solve_triangular solve with the other triangle, transposed; cholesky asks potrf for the upper
// factor of A^T = A, which is read back as the lower one; eigh reads the other triangle of the
// column-major matrix (UPLO="L" is LAPACK's "U" there) and transposes the eigenvectors back; svd
// of A^T = U' S V'^T is A = V' S U'^T, so LAPACK's V'^T is, read row-major, A's U and its U' A's Vh.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <tcore/ops/_linalg_solve_ex_native.h>
#include <tcore/ops/_linalg_det_native.h>
#include <tcore/ops/_linalg_slogdet_native.h>
#include <tcore/ops/where.h>
#include <tcore/ops/_linalg_svd_native.h>
#include <tcore/ops/_linalg_solve_triangular_native.h>
#include <tcore/ops/linalg_eigh_native.h>
#include <tcore/ops/linalg_inv_ex_native.h>
#include <tcore/ops/linalg_cholesky_ex_native.h>
#include <tcore/ops/linalg_lu_factor_ex_native.h>
#include <tcore/ops/linalg_lu_solve_native.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/geqrf_native.h>
#include <tcore/ops/linalg_qr_native.h>
#include <tcore/ops/transpose.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/zeros.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/linalg_lstsq_native.h>

#include "native/LinearAlgebraChecks.h"
#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "tcore_build_config.h"  // TCORE_HAVE_BLAS (CMakeLists.txt)

#if TCORE_HAVE_BLAS
extern "C" {  // LAPACK's Fortran interface, as OpenBLAS exports it
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const float* alpha, const float* a, const int* lda, float* b, const int* ldb);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb);
void strsv_(const char* uplo, const char* trans, const char* diag, const int* n, const float* a, const int* lda,
            float* x, const int* incx);
void dtrsv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* a, const int* lda,
            double* x, const int* incx);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info);
void sgels_(const char* trans, const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
            const int* ldb, float* work, const int* lwork, int* info);
void dgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
            const int* ldb, double* work, const int* lwork, int* info);
void sgelsy_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, int* jpvt,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
void dgelsy_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             int* jpvt, const double* rcond, int* rank, double* work, const int* lwork, int* info);
void sgelsd_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* iwork, int* info);
void dgelsd_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             double* s, const double* rcond, int* rank, double* work, const int* lwork, int* iwork, int* info);
void sgelss_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
void dgelss_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             double* s, const double* rcond, int* rank, double* work, const int* lwork, int* info);
void sgelqf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork, int* info);
void dgelqf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorglq_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorglq_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
}
#endif

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

#if TCORE_HAVE_BLAS
// call(work, lwork) twice, as LAPACK's routines with a workspace want: first lwork = -1 (the size
// it needs written to work[0]), then with a workspace of that size.
template <typename T, typename Call>
void with_workspace(const Call& call) {
  T size{};
  call(&size, -1);
  std::vector<T> work(static_cast<size_t>(std::max(1, static_cast<int>(size))));
  call(work.data(), static_cast<int>(work.size()));
}
void getrf(int n, float* a, int* ipiv, int* info) { sgetrf_(&n, &n, a, &n, ipiv, info); }
void getrf(int n, double* a, int* ipiv, int* info) { dgetrf_(&n, &n, a, &n, ipiv, info); }
void getrf(int m, int n, float* a, int* ipiv, int* info) { sgetrf_(&m, &n, a, &m, ipiv, info); }
void getrf(int m, int n, double* a, int* ipiv, int* info) { dgetrf_(&m, &n, a, &m, ipiv, info); }
template <typename T>
void getri(int n, T* a, const int* ipiv, int* info) {
  with_workspace<T>([&](T* work, int lwork) {
    if constexpr (std::is_same_v<T, float>) sgetri_(&n, a, &n, ipiv, work, &lwork, info);
    else dgetri_(&n, a, &n, ipiv, work, &lwork, info);
  });
}
// the LQ factorization of the column-major m x n matrix a (leading dimension lda): L in its lower
// triangle, the reflectors above with tau; orglq makes the first `rows` rows of Q from k of them
template <typename T>
void gelqf(int m, int n, T* a, int lda, T* tau, int* info) {
  with_workspace<T>([&](T* work, int lwork) {
    if constexpr (std::is_same_v<T, float>) sgelqf_(&m, &n, a, &lda, tau, work, &lwork, info);
    else dgelqf_(&m, &n, a, &lda, tau, work, &lwork, info);
  });
}
// Least squares of the column-major m x n a (destroyed) against the ldb x nrhs b (the solutions
// in its first n rows), by `driver`: gels (QR; full rank assumed), gelsy (complete orthogonal
// factorization), gelsd and gelss (SVD: s). rank: the effective rank (not for gels).
template <typename T>
void least_squares(std::string_view driver, int m, int n, int nrhs, T* a, T* b, int ldb, T rcond, T* s, int* rank,
                   int* info) {
  const int lda = std::max(1, m);
  constexpr bool f32 = std::is_same_v<T, float>;
  if (driver == "gels") {
    with_workspace<T>([&](T* work, int lwork) {
      if constexpr (f32) sgels_("N", &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info);
      else dgels_("N", &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info);
    });
  } else if (driver == "gelsy") {
    std::vector<int> jpvt(static_cast<size_t>(std::max(1, n)), 0);
    with_workspace<T>([&](T* work, int lwork) {
      if constexpr (f32) sgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt.data(), &rcond, rank, work, &lwork, info);
      else dgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt.data(), &rcond, rank, work, &lwork, info);
    });
  } else if (driver == "gelsd") {
    int iwork_size = 1;
    with_workspace<T>([&](T* work, int lwork) {
      std::vector<int> iwork(static_cast<size_t>(std::max(1, iwork_size)));
      if constexpr (f32) sgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork.data(), info);
      else dgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork.data(), info);
      if (lwork == -1) iwork_size = iwork[0];  // (the query also says iwork's size)
    });
  } else {
    with_workspace<T>([&](T* work, int lwork) {
      if constexpr (f32) sgelss_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, info);
      else dgelss_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, info);
    });
  }
}
template <typename T>
void orglq(int rows, int n, int k, T* a, int lda, const T* tau, int* info) {
  with_workspace<T>([&](T* work, int lwork) {
    if constexpr (std::is_same_v<T, float>) sorglq_(&rows, &n, &k, a, &lda, tau, work, &lwork, info);
    else dorglq_(&rows, &n, &k, a, &lda, tau, work, &lwork, info);
  });
}
void getrs(int n, int nrhs, const float* a, const int* ipiv, float* b, int* info, const char* trans = "T") {
  sgetrs_(trans, &n, &nrhs, a, &n, ipiv, b, &n, info);
}
void getrs(int n, int nrhs, const double* a, const int* ipiv, double* b, int* info, const char* trans = "T") {
  dgetrs_(trans, &n, &nrhs, a, &n, ipiv, b, &n, info);
}
void potrf(int n, float* a, int* info) { spotrf_("U", &n, a, &n, info); }
void potrf(int n, double* a, int* info) { dpotrf_("U", &n, a, &n, info); }
// Y op(M) = C (side "R") or op(M) Y = C (side "L") in place of C (k x n or n x k, column-major), M
// the n x n triangle `uplo` of a (column-major, unit diagonal if `unit`), op the transpose if trans
template <typename T>
void trsm(const char* side, const char* uplo, bool trans, bool unit, int rows, int cols, const T* a, T* c) {
  const T one = 1;
  const int n = *side == 'R' ? cols : rows;
  if constexpr (std::is_same_v<T, float>) strsm_(side, uplo, trans ? "T" : "N", unit ? "U" : "N", &rows, &cols, &one, a, &n, c, &rows);
  else dtrsm_(side, uplo, trans ? "T" : "N", unit ? "U" : "N", &rows, &cols, &one, a, &n, c, &rows);
}
// op(M) x = b in place of the vector b (contiguous), M as trsm's
template <typename T>
void trsv(const char* uplo, bool trans, bool unit, int n, const T* a, T* x) {
  const int inc = 1;
  if constexpr (std::is_same_v<T, float>) strsv_(uplo, trans ? "T" : "N", unit ? "U" : "N", &n, a, &n, x, &inc);
  else dtrsv_(uplo, trans ? "T" : "N", unit ? "U" : "N", &n, a, &n, x, &inc);
}
// op(A) X = B in place of X = B, A the n x n row-major triangle (upper or lower; unit diagonal if
// `unit`), X n x k row-major, op the transpose if trans. Row-major A is column-major A^T (the other
// triangle) and row-major X column-major X^T: the solve is X^T op(A)^T = B^T there. One column
// goes to trsv: OpenBLAS's trsm packs the whole triangle for it (3.4x MKL's time at n = 512).
template <typename T>
void solve_rows(bool upper, bool trans, bool unit, int n, int k, const T* a, T* x) {
  const char* uplo = upper ? "L" : "U";  // A's triangle as column-major A^T holds it
  if (k == 1) trsv(uplo, !trans, unit, n, a, x);  // A = M^T: op(A) x = b is op'(M) x = b
  else trsm("R", uplo, trans, unit, k, n, a, x);   // X^T op(A)^T = B^T, A^T = M
}
// the SVD of the column-major m x n matrix a (destroyed): s descending, u m x ucols, vt vtrows x n
template <typename T>
void gesdd(const char* jobz, int m, int n, T* a, T* s, T* u, int ldu, T* vt, int ldvt, int* info) {
  std::vector<int> iwork(static_cast<size_t>(8 * std::max(1, std::min(m, n))));
  with_workspace<T>([&](T* work, int lwork) {
    if constexpr (std::is_same_v<T, float>) sgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork.data(), info);
    else dgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork.data(), info);
  });
}
// eigenvalues ascending into w, eigenvectors into a's columns; the workspace sizes asked first
template <typename T>
void syevd(const char* uplo, int n, T* a, T* w, int* info) {
  const auto call = [&](T* work, int lwork, int* iwork, int liwork) {
    if constexpr (std::is_same_v<T, float>) ssyevd_("V", uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info);
    else dsyevd_("V", uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info);
  };
  T work_size{};
  int iwork_size = 0;
  call(&work_size, -1, &iwork_size, -1);
  std::vector<T> work(static_cast<size_t>(std::max(1, static_cast<int>(work_size))));
  std::vector<int> iwork(static_cast<size_t>(std::max(1, iwork_size)));
  call(work.data(), static_cast<int>(work.size()), iwork.data(), static_cast<int>(iwork.size()));
}
#endif

// The matrices of a batch, copied: count of them, n x n each.
struct Matrices {
  Tensor data;
  int64_t count, n;
};
Matrices matrices_of(const Tensor& A) {
  const int64_t n = A.sizes()[A.dim() - 1];
  return {copy_of(A), n == 0 ? 0 : A.numel() / (n * n), n};
}

void require_lapack(const char* op) {
  TCORE_CHECK(TCORE_HAVE_BLAS, op, ": this build of tcore has no LAPACK (it links OpenBLAS's when the build finds "
                                   "libopenblas-openmp-dev or libopenblas-dev)");
}

// Whether U's diagonal of an n x n LU factorization holds a NaN: the factors of a matrix with a
// NaN, whose inverse and solutions torch gives as NaN throughout (OpenBLAS leaves some finite).
template <typename T>
bool nan_pivot(const T* lu, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    if (std::isnan(lu[j * n + j])) return true;
  return false;
}

// Whether the r x c matrix at p (row stride ld) is finite; triangle: only the lower (-1) or upper
// (1) triangle, the part a symmetric routine reads. The iterative routines (gesdd's and syevd's
// QR sweeps, gelsd's and gelss's SVDs) are never given an infinity or a NaN: OpenBLAS's dbdsqr
// looped forever on a 3 x 3 matrix with a -inf.
template <typename T>
bool finite_matrix(const T* p, int64_t r, int64_t c, int64_t ld, int triangle = 0) {
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = triangle < 0 ? 0 : triangle > 0 ? i : 0; j < (triangle < 0 ? std::min(i + 1, c) : c); ++j)
      if (!std::isfinite(p[i * ld + j])) return false;
  return true;
}

void check_lapack_size(int64_t n, const char* op) {
  TCORE_CHECK_VALUE(n <= INT_MAX / std::max<int64_t>(n, 1), op, ": matrices of ", n, " by ", n,
                    " elements exceed LAPACK's 32-bit sizes");
}

template <typename F>
void dispatch_lapack(ScalarType t, const F& f) {
  if (t == ScalarType::Float) f(float{});
  else f(double{});
}

}  // namespace

// The inverses and LAPACK's info per matrix (the first zero pivot's place, or 0); a singular
// matrix's "inverse" is the solution of A X = I by its factors (inf and NaN), as torch's;
// check_errors: a singular matrix raises.
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  check_linalg_square(A, "linalg.inv");
  check_linalg_float(A, "linalg.inv");
  require_lapack("linalg.inv");
  // (A column-major, A's own factors: info names the zero pivot of A's, as torch's; the inverse
  // comes back column-major and is transposed)
  Matrices m = matrices_of(tcore::transpose(A, -2, -1));
  check_lapack_size(m.n, "linalg.inv");
  Tensor info = tcore::zeros(IntArrayRef(A.sizes().data(), A.sizes().size() - 2), ScalarType::Int);
#if TCORE_HAVE_BLAS
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = m.data.data_ptr<T>();
    int* inf = info.data_ptr<int>();
    std::vector<int> ipiv(static_cast<size_t>(std::max<int64_t>(m.n, 1)));
    const int n = static_cast<int>(m.n);
    for (int64_t i = 0; i < m.count; ++i) {
      T* a = p + i * m.n * m.n;
      getrf(n, a, ipiv.data(), inf + i);
      TCORE_CHECK_LINALG(!check_errors || inf[i] == 0, singular_inverse("linalg.inv_ex", A, i, inf[i]));
      if (nan_pivot(a, m.n)) {
        std::fill_n(a, m.n * m.n, std::numeric_limits<T>::quiet_NaN());
      } else if (inf[i] > 0) {  // (the factors solve A X = I)
        std::vector<T> x(static_cast<size_t>(m.n * m.n), T(0));
        for (int64_t j = 0; j < m.n; ++j) x[j * m.n + j] = T(1);
        int ignored = 0;
        getrs(n, n, a, ipiv.data(), x.data(), &ignored, "N");
        std::copy(x.begin(), x.end(), a);
      } else {
        int ignored = 0;
        getri(n, a, ipiv.data(), &ignored);
      }
    }
  });
#endif
  return {contiguous_copy(tcore::transpose(m.data, -2, -1)), info};
}

// A X = B (left) or X A = B for A (*, n, n) and B (*, n, k), (*, k, n) or a vector (B 1-D or A's
// shape without its last dim, left only), the batches broadcast; torch's checks and words. LU,
// pivots and info: linalg_lu_factor_ex(A) (A's batch, not the broadcast one), which the
// derivatives reuse; the solution getrs's on them, NaN throughout where U's diagonal holds a NaN
// (as torch's). check_errors: a singular A raises (LinAlgError).
std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_solve_ex(const Tensor& A, const Tensor& B, bool left,
                                                            bool check_errors) {
  check_linalg_square(A, "linalg.solve");
  check_linalg_float(A, "linalg.solve");
  TCORE_CHECK_TYPE(A.dtype() == B.dtype(), "linalg.solve: Expected A and B to have the same dtype, but found A of type ",
                   A.dtype(), " and B of type ", B.dtype(), " instead");
  const bool vector = solve_vector_rhs(A, B);
  const Tensor b = vector ? tcore::unsqueeze(B, -1) : B;
  TCORE_CHECK_VALUE(b.dim() >= 2, "linalg.solve: The input tensor B must have at least 2 dimensions.");
  const int64_t n = A.sizes()[A.dim() - 1], rows = b.sizes()[b.dim() - 2], cols = b.sizes()[b.dim() - 1];
  TCORE_CHECK_VALUE(left ? rows == n : cols == n, "linalg.solve: Incompatible shapes of A and B for the equation ",
                    left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows, "x", cols, ")");
  broadcast_shapes(IntArrayRef(A.sizes().data(), A.sizes().size() - 2), IntArrayRef(b.sizes().data(), b.sizes().size() - 2));
  require_lapack("linalg.solve");
  const auto [LU, pivots, info] = linalg_lu_factor_ex(A, true, false);
  if (check_errors) raise_first_failure(info, "torch.linalg.solve_ex", A, singular_solve);
  Tensor x = linalg_lu_solve(LU, pivots, b, left, false);
  std::vector<uint8_t> nan(static_cast<size_t>(info.numel()), 0);
  bool any_nan = false;
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; n > 0 && i < info.numel(); ++i) any_nan |= (nan[i] = nan_pivot(LU.data_ptr<T>() + i * n * n, n));
  });
  if (any_nan) {
    std::vector<int64_t> flags_shape(A.sizes().begin(), A.sizes().end() - 2);
    flags_shape.insert(flags_shape.end(), {1, 1});
    Tensor flags = empty_cpu(flags_shape, ScalarType::Bool);
    std::copy(nan.begin(), nan.end(), flags.data_ptr<bool>());
    x = tcore::where(flags, Scalar(std::numeric_limits<double>::quiet_NaN()), x);
  }
  return {vector ? tcore::squeeze(x, -1) : x, LU, pivots, info};
}

namespace {
// The determinants of a batch from its LU factors (*, n, n) and pivots: the product of U's
// diagonal, negated for each row interchange; log_abs: log|det| and its sign instead (no overflow
// for large matrices). A zero on the diagonal: det 0, log|det| -inf, its sign as torch's product of
// signs gives it. n == 0: det 1, log|det| 0.
template <typename T>
void determinants(const Tensor& LU, const Tensor& pivots, int64_t count, T* det_or_sign, T* log_abs) {
  const int64_t n = LU.sizes()[LU.dim() - 1];
  const T* lu = LU.data_ptr<T>();
  const int* piv = pivots.data_ptr<int>();
  for (int64_t i = 0; i < count; ++i, lu += n * n, piv += n) {
    T sign = 1, product = 1, logs = 0;
    for (int64_t j = 0; j < n; ++j) {
      const T d = lu[j * n + j];
      if (piv[j] != j + 1) sign = -sign;
      if (log_abs) {
        sign *= d > 0 ? T(1) : d < 0 ? T(-1) : T(0);
        logs += std::log(std::abs(d));
      } else {
        product *= d;
      }
    }
    det_or_sign[i] = log_abs ? sign : sign * product;
    if (log_abs) log_abs[i] = logs;
  }
}
}  // namespace

// det of each matrix of A from linalg_lu_factor_ex(A)'s factors, returned with them (the
// derivatives reuse them).
std::tuple<Tensor, Tensor, Tensor> _linalg_det(const Tensor& A) {
  check_linalg_square(A, "linalg.det");
  check_linalg_float(A, "linalg.det");
  require_lapack("linalg.det");
  const auto [LU, pivots, info] = linalg_lu_factor_ex(A, true, false);
  const std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
  Tensor det = empty_cpu(batch, A.dtype());
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    determinants<T>(LU, pivots, det.numel(), det.data_ptr<T>(), nullptr);
  });
  return {det, LU, pivots};
}

// sign and log|det| of each matrix of A, as _linalg_det.
std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_slogdet(const Tensor& A) {
  check_linalg_square(A, "linalg.slogdet");
  check_linalg_float(A, "linalg.slogdet");
  require_lapack("linalg.slogdet");
  const auto [LU, pivots, info] = linalg_lu_factor_ex(A, true, false);
  const std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
  Tensor sign = empty_cpu(batch, A.dtype()), logabsdet = empty_cpu(batch, A.dtype());
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    determinants<T>(LU, pivots, sign.numel(), sign.data_ptr<T>(), logabsdet.data_ptr<T>());
  });
  return {sign, logabsdet, LU, pivots};
}

// The Cholesky factors and LAPACK's info per matrix (the order of the first leading minor that is
// not positive-definite, or 0; the factor then holds potrf's partial work). Only the triangle named
// by `upper` is read (the lower one by default), as torch's; check_errors: a failure raises.
std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  check_linalg_square(A, "linalg.cholesky");
  check_linalg_float(A, "linalg.cholesky");
  require_lapack("linalg.cholesky");
  // potrf("U") of the column-major matrix reads its upper triangle, which is the row-major lower
  // one: for upper=True, the row-major transpose's
  Matrices m = matrices_of(upper ? tcore::transpose(A, -2, -1) : A);
  check_lapack_size(m.n, "linalg.cholesky");
  Tensor info = tcore::zeros(IntArrayRef(A.sizes().data(), A.sizes().size() - 2), ScalarType::Int);
#if TCORE_HAVE_BLAS
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = m.data.data_ptr<T>();
    int* inf = info.data_ptr<int>();
    const int n = static_cast<int>(m.n);
    for (int64_t i = 0; i < m.count; ++i) {
      potrf(n, p + i * m.n * m.n, inf + i);
      for (int64_t j = 0; inf[i] == 0 && j < m.n; ++j)  // a NaN pivot fails as in reference LAPACK (OpenBLAS goes on)
        if (std::isnan(p[i * m.n * m.n + j * m.n + j])) inf[i] = static_cast<int>(j + 1);
      TCORE_CHECK_LINALG(!check_errors || inf[i] == 0, not_positive_definite("linalg.cholesky_ex", A, i, inf[i]));
      T* l = p + i * m.n * m.n;  // row-major lower factor: the strict upper triangle still holds A's
      for (int64_t r = 0; r < m.n; ++r) std::fill(l + r * m.n + r + 1, l + (r + 1) * m.n, T(0));
    }
  });
#endif
  return {upper ? contiguous_copy(tcore::transpose(m.data, -2, -1)) : m.data, info};
}

// Eigenvalues ascending and orthonormal eigenvectors (columns) of symmetric matrices, of which
// only the triangle UPLO names is read.
std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view UPLO) {
  TCORE_CHECK_VALUE(UPLO == "L" || UPLO == "U", "Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  check_linalg_square(A, "linalg.eigh");
  check_linalg_float(A, "linalg.eigh");
  require_lapack("linalg.eigh");
  Matrices m = matrices_of(A);
  check_lapack_size(m.n, "linalg.eigh");
  std::vector<int64_t> sizes(A.sizes().begin(), A.sizes().end() - 1);
  Tensor values = empty_cpu(sizes, A.dtype());
#if TCORE_HAVE_BLAS
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = m.data.data_ptr<T>();
    T* w = values.data_ptr<T>();
    const char* uplo = UPLO == "L" ? "U" : "L";  // the row-major lower triangle is the column-major upper one
    for (int64_t i = 0; i < m.count; ++i) {
      int info = 0;
      TCORE_CHECK_LINALG(finite_matrix(p + i * m.n * m.n, m.n, m.n, m.n, UPLO == "L" ? -1 : 1), "linalg.eigh: ",
                         batch_prefix(A, i), "The algorithm failed to converge because the input matrix contained "
                         "non-finite values.");
      syevd(uplo, static_cast<int>(m.n), p + i * m.n * m.n, w + i * m.n, &info);
      TCORE_CHECK_LINALG(info == 0, "linalg.eigh: ", batch_prefix(A, i), "The algorithm failed to converge because the "
                         "input matrix is ill-conditioned or has too many repeated eigenvalues (error code: ", info, ").");
    }
  });
#endif
  return {values, contiguous_copy(tcore::transpose(m.data, -2, -1))};
}

// A X = B for triangular A (*, n, n) (the triangle `upper` names read; unitriangular: its diagonal
// taken as ones) and B (*, n, k) of one batch and dtype (linalg.solve_triangular broadcasts and
// checks), through solve_rows. A is read where it lies when it is contiguous or the transpose of a
// contiguous tensor (the derivatives' mT(L)): the other triangle, transposed. A zero on the
// diagonal gives inf and NaN, as torch's (no check).
Tensor _linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool unitriangular) {
  check_linalg_square(A, "linalg.solve_triangular");
  check_linalg_float(A, "linalg.solve_triangular");
  TCORE_CHECK_VALUE(B.dim() == A.dim() && B.sizes()[B.dim() - 2] == A.sizes()[A.dim() - 1] &&
                        std::equal(A.sizes().begin(), A.sizes().end() - 2, B.sizes().begin()) && A.dtype() == B.dtype(),
                    "_linalg_solve_triangular: B must be (*, n, k) for A (*, n, n) of the same batch and dtype");
  require_lapack("linalg.solve_triangular");
  const int64_t n = A.sizes()[A.dim() - 1], k = B.sizes()[B.dim() - 1];
  const int64_t count = n == 0 ? 0 : A.numel() / (n * n);
  check_lapack_size(std::max(n, k), "linalg.solve_triangular");
  const Tensor flipped = tcore::transpose(A, -2, -1);
  const bool transposed = !A.is_contiguous() && flipped.is_contiguous();
  const Tensor a = transposed ? flipped : contiguous_copy(A);
  Tensor x = copy_of(B);
#if TCORE_HAVE_BLAS
  if (k > 0 && n > 0) {
    dispatch_lapack(A.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* pa = a.data_ptr<T>();
      T* px = x.data_ptr<T>();
      for (int64_t i = 0; i < count; ++i)
        solve_rows(upper != transposed, transposed, unitriangular, static_cast<int>(n), static_cast<int>(k),
                   pa + i * n * n, px + i * n * k);
    });
  }
#endif
  return x;
}

// A = U diag(S) Vh for A (*, m, n): S descending (k = min(m, n) values); U (*, m, m) and Vh (*, n, n)
// when full_matrices, else (*, m, k) and (*, k, n); compute_uv false: S only (U and Vh empty).
std::tuple<Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices, bool compute_uv,
                                               std::optional<std::string_view> driver) {
  TCORE_CHECK_VALUE(!driver.has_value(), "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA "
                                         "inputs with cuSOLVER backend.");
  TCORE_CHECK_VALUE(A.dim() >= 2, "linalg.svd: The input tensor A must have at least 2 dimensions.");
  check_linalg_float(A, "linalg.svd");
  require_lapack("linalg.svd");
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  check_lapack_size(std::max(m, n), "linalg.svd");
  const int64_t count = m == 0 || n == 0 ? 0 : A.numel() / (m * n);
  std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
  const auto with = [&](int64_t r, int64_t c) {
    std::vector<int64_t> v = batch;
    v.push_back(r);
    if (c >= 0) v.push_back(c);
    return v;
  };
  const int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  Tensor S = empty_cpu(with(k, -1), A.dtype());
  Tensor U = compute_uv ? empty_cpu(with(m, ucols), A.dtype()) : empty_cpu({0}, A.dtype());
  Tensor Vh = compute_uv ? empty_cpu(with(vrows, n), A.dtype()) : empty_cpu({0}, A.dtype());
  if (compute_uv && k == 0) {  // no singular values: the full factors are identities, as torch's
    if (full_matrices) {
      dispatch_lapack(A.dtype(), [&](auto tag) {
        using T = decltype(tag);
        for (const Tensor* f : {&U, &Vh}) {
          const int64_t d = f->sizes()[f->dim() - 1];
          T* p = f->data_ptr<T>();
          std::fill_n(p, f->numel(), T(0));
          for (int64_t i = 0; d > 0 && i < f->numel() / (d * d); ++i)
            for (int64_t j = 0; j < d; ++j) p[i * d * d + j * d + j] = T(1);
        }
      });
    }
    return {U, S, Vh};
  }
#if TCORE_HAVE_BLAS
  Tensor a = copy_of(A);
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* pa = a.data_ptr<T>();
    T* ps = S.data_ptr<T>();
    // LAPACK sees A^T (n x m): its u (n x vrows) is Vh, read row-major; its vt (ucols x m) is U
    T* pvh = compute_uv ? Vh.data_ptr<T>() : nullptr;
    T* pu = compute_uv ? U.data_ptr<T>() : nullptr;
    T dummy[1] = {};
    const char* jobz = !compute_uv ? "N" : full_matrices ? "A" : "S";
    for (int64_t i = 0; i < count; ++i) {
      // a NaN, or an infinity where the factors are asked for, raises (torch's message; torch's LAPACK
      // fails on an infinity too); the singular values alone of a matrix with an infinity are NaN, as
      // torch's
      const bool has_nan = std::any_of(pa + i * m * n, pa + (i + 1) * m * n, [](T v) { return std::isnan(v); });
      const bool finite = !has_nan && finite_matrix(pa + i * m * n, m, n, n);
      TCORE_CHECK_LINALG(finite || (!has_nan && !compute_uv), "linalg.svd: ", batch_prefix(A, i), "The algorithm "
                         "failed to converge because the input matrix contained non-finite values.");
      if (!finite) {
        std::fill_n(ps + i * k, k, std::numeric_limits<T>::quiet_NaN());
        continue;
      }
      int info = 0;
      gesdd(jobz, static_cast<int>(n), static_cast<int>(m), pa + i * m * n, ps + i * k,
            compute_uv ? pvh + i * vrows * n : dummy, static_cast<int>(n), compute_uv ? pu + i * m * ucols : dummy,
            static_cast<int>(compute_uv ? ucols : 1), &info);
      TCORE_CHECK_LINALG(info == 0, "linalg.svd: ", batch_prefix(A, i), "The algorithm failed to converge because the "
                         "input matrix is ill-conditioned or has too many repeated singular values (error code: ",
                         info, ").");
    }
  });
#endif
  return {U, S, Vh};
}

// A = P L U for A (*, m, n) with partial pivoting (getrf): L's strict lower part and U packed in LU
// (*, m, n), pivots (*, k) 1-based as LAPACK's (int32), info (*) the first zero pivot's place
// (1-based) or 0, as torch's; check_errors: a zero pivot raises. LAPACK factors the column-major
// copy of A (A^T's row-major), read back transposed.
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  TCORE_CHECK_VALUE(A.dim() >= 2, "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ",
                    shape_str(A.sizes()), " instead");
  check_linalg_float(A, "linalg.lu_factor");
  TCORE_CHECK_VALUE(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  require_lapack("linalg.lu_factor");
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  check_lapack_size(std::max(m, n), "linalg.lu_factor");
  const std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
  std::vector<int64_t> pivots_shape = batch;
  pivots_shape.push_back(k);
  Tensor columns = copy_of(tcore::transpose(A, -2, -1));  // each matrix column-major
  Tensor pivots = empty_cpu(pivots_shape, ScalarType::Int), info = empty_cpu(batch, ScalarType::Int);
  const int64_t count = m == 0 || n == 0 ? 0 : A.numel() / (m * n);
  int* piv = pivots.data_ptr<int>();
  int* inf = info.data_ptr<int>();
  std::fill_n(inf, info.numel(), 0);
#if TCORE_HAVE_BLAS
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* a = columns.data_ptr<T>();
    for (int64_t i = 0; i < count; ++i) {
      getrf(static_cast<int>(m), static_cast<int>(n), a + i * m * n, piv + i * k, inf + i);
      TCORE_CHECK_LINALG(!check_errors || inf[i] == 0, zero_lu_pivot("torch.linalg.lu_factor_ex", A, i, inf[i]));
    }
  });
#endif
  return {contiguous_copy(tcore::transpose(columns, -2, -1)), pivots, info};
}

// op(A) X = B (left) or X op(A) = B, A = P L U from linalg_lu_factor (op: the transpose when
// adjoint), B (*, n, k) or (*, k, n); the batches broadcast. The row interchanges by hand and two
// triangular solves (solve_rows) on the row-major LU as it is: getrs wanted a column-major copy
// (a transposition of n^2 values every call: lu_solve of one column at n = 512 2.2x MKL's time).
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  TCORE_CHECK_VALUE(LU.dim() >= 2, "linalg.lu_solve: The input tensor LU must have at least 2 dimensions.");
  TCORE_CHECK_VALUE(B.dim() >= 2, "linalg.lu_solve: The input tensor B must have at least 2 dimensions.");
  check_linalg_square(LU, "torch.linalg.lu_solve");
  check_linalg_float(LU, "linalg.lu_solve");
  const int64_t n = LU.sizes()[LU.dim() - 1];
  const int64_t rows = B.sizes()[B.dim() - 2], cols = B.sizes()[B.dim() - 1];
  TCORE_CHECK_VALUE(left ? rows == n : cols == n, "linalg.lu_solve: Incompatible shapes of A and B for the equation ",
                    left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows, "x", cols, ")");
  TCORE_CHECK_TYPE(LU.dtype() == B.dtype(), "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU "
                   "of type ", LU.dtype(), " and B of type ", B.dtype(), " instead");
  TCORE_CHECK_TYPE(pivots.dtype() == ScalarType::Int, "linalg.lu_solve: pivots should be a Tensor of scalar type int32");
  TCORE_CHECK_VALUE(pivots.dim() == LU.dim() - 1 && pivots.sizes()[pivots.dim() - 1] == n &&
                        std::equal(LU.sizes().begin(), LU.sizes().end() - 2, pivots.sizes().begin()),
                    "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with "
                    "shape ", shape_str(pivots.sizes()), " instead");
  require_lapack("linalg.lu_solve");
  check_lapack_size(std::max({n, rows, cols}), "linalg.lu_solve");
  std::vector<int64_t> batch = broadcast_shapes(IntArrayRef(LU.sizes().data(), LU.sizes().size() - 2),
                                                IntArrayRef(B.sizes().data(), B.sizes().size() - 2));
  std::vector<int64_t> lu_shape = batch, piv_shape = batch, b_shape = batch;
  lu_shape.insert(lu_shape.end(), {n, n});
  piv_shape.push_back(n);
  b_shape.insert(b_shape.end(), {rows, cols});
  // the factors where they lie when they are of B's batch (row-major: L below the diagonal, U on and
  // above it); X op(A) = B is op(A)^T X^T = B^T, the left solve of B^T with the other op
  const Tensor a = contiguous_copy(tcore::expand(LU, lu_shape));
  const Tensor piv = contiguous_copy(tcore::expand(pivots, piv_shape));
  const Tensor expanded = tcore::expand(B, b_shape);
  Tensor x = copy_of(left ? expanded : tcore::transpose(expanded, -2, -1));  // n x nrhs, row-major
  const int64_t count = n == 0 ? 0 : a.numel() / (n * n), nrhs = left ? cols : rows;
  const bool transposed = left == adjoint;  // solving A^T X = B
  const int* pp = piv.data_ptr<int>();
  TCORE_CHECK_VALUE(std::all_of(pp, pp + piv.numel(), [n](int p) { return p >= 1 && p <= n; }),
                    "linalg.lu_solve: pivots must be between 1 and ", n, " (LAPACK's row interchanges, as "
                    "linalg.lu_factor returns them)");
#if TCORE_HAVE_BLAS
  dispatch_lapack(LU.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int size = static_cast<int>(n), k = static_cast<int>(nrhs);
    const auto swap_rows = [&](T* xi, const int* pi, int64_t r) {
      if (pi[r] - 1 != r) std::swap_ranges(xi + r * nrhs, xi + (r + 1) * nrhs, xi + (pi[r] - 1) * nrhs);
    };
    for (int64_t i = 0; nrhs > 0 && i < count; ++i) {
      const T* ai = a.data_ptr<T>() + i * n * n;
      const int* pi = pp + i * n;
      T* xi = x.data_ptr<T>() + i * n * nrhs;
      if (!transposed) {  // A = P L U: X = U^-1 L^-1 P^T B, P^T B the interchanges in order
        for (int64_t r = 0; r < n; ++r) swap_rows(xi, pi, r);
        solve_rows(false, false, true, size, k, ai, xi);
        solve_rows(true, false, false, size, k, ai, xi);
      } else {  // A^T = U^T L^T P^T: X = P L^-T U^-T B, P the interchanges in reverse
        solve_rows(true, true, false, size, k, ai, xi);
        solve_rows(false, true, true, size, k, ai, xi);
        for (int64_t r = n - 1; r >= 0; --r) swap_rows(xi, pi, r);
      }
    }
  });
#endif
  return left ? x : contiguous_copy(tcore::transpose(x, -2, -1));
}

// torch.linalg.lstsq on the CPU: the solutions (*, n, k) of min ||A X - B|| for A (*, m, n) and B
// (*, m, k) or a vector (*, m), the batches broadcast; driver gelsy by default (torch's on the CPU),
// rcond eps * max(m, n) by default. residuals (*, k): the squared residuals where m > n, the driver
// is not gelsy and every matrix has full rank (else empty); rank (*) int64 but for gels; the
// singular values (*, min(m, n)) for gelsd and gelss. As torch's.
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                        std::optional<std::string_view> driver_name) {
  TCORE_CHECK_VALUE(A.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.");
  TCORE_CHECK_VALUE(B.dim() >= 1, "torch.linalg.lstsq: other must have at least 1 dimension.");
  TCORE_CHECK_TYPE(A.dtype() == B.dtype(), "torch.linalg.lstsq: Expected input and other to have the same dtype, but "
                   "got input's dtype ", A.dtype(), " and other's dtype ", B.dtype());
  TCORE_CHECK_VALUE(A.dim() >= B.dim() && A.dim() - B.dim() <= 1, "torch.linalg.lstsq: input.dim() must be greater or "
                    "equal to other.dim() and (input.dim() - other.dim()) <= 1");
  check_linalg_float(A, "torch.linalg.lstsq");
  const std::string_view driver = driver_name.value_or("gelsy");
  TCORE_CHECK_VALUE(driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss",
                    "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  const bool vector = B.dim() == A.dim() - 1;
  const Tensor b = vector ? tcore::unsqueeze(B, -1) : B;
  TCORE_CHECK_VALUE(A.sizes()[A.dim() - 2] == b.sizes()[b.dim() - 2], "torch.linalg.lstsq: input.size(-2) should "
                    "match other.size(", vector ? "-1" : "-2", ")");
  require_lapack("torch.linalg.lstsq");
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = b.sizes()[b.dim() - 1];
  const int64_t rows = std::max<int64_t>({m, n, 1}), q = std::min(m, n);
  check_lapack_size(std::max({m, n, k}), "torch.linalg.lstsq");
  const std::vector<int64_t> batch = broadcast_shapes(IntArrayRef(A.sizes().data(), A.sizes().size() - 2),
                                                      IntArrayRef(b.sizes().data(), b.sizes().size() - 2));
  const auto with = [&](std::initializer_list<int64_t> tail) {
    std::vector<int64_t> v = batch;
    v.insert(v.end(), tail);
    return v;
  };
  // LAPACK's layouts: A column-major (its transpose's row-major), B column-major in `rows` x k
  const Tensor a = copy_of(tcore::transpose(tcore::expand(A, with({m, n})), -2, -1));
  Tensor work_b = tcore::zeros(with({k, rows}), A.dtype());
  copy_kernel(tcore::narrow(work_b, -1, 0, m), tcore::transpose(tcore::expand(b, with({m, k})), -2, -1));
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  const bool ranked = driver != "gels", svd = driver == "gelsd" || driver == "gelss";
  Tensor rank = ranked ? tcore::zeros(batch, ScalarType::Long) : empty_cpu({0}, ScalarType::Long);
  Tensor S = svd ? empty_cpu(with({q}), A.dtype()) : empty_cpu({0}, A.dtype());
  bool full_rank = true;
#if TCORE_HAVE_BLAS
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T cutoff = rcond ? static_cast<T>(*rcond) : std::numeric_limits<T>::epsilon() * static_cast<T>(std::max(m, n));
    T* pa = a.data_ptr<T>();
    T* pb = work_b.data_ptr<T>();
    // (LAPACK's quick returns as torch meets them: gels zeroes B where A has no elements; no right-hand
    // side gets one zero column, so that the rank and singular values are still computed)
    std::vector<T> zero_column(static_cast<size_t>(k == 0 ? rows : 0));
    for (int64_t i = 0; i < count; ++i) {
      int r = 0, info = 0;
      TCORE_CHECK_LINALG(!svd || finite_matrix(pa + i * m * n, n, m, m), "torch.linalg.lstsq: ", batch_prefix(A, i),
                         "The algorithm failed to converge because the input matrix contained non-finite values.");
      least_squares<T>(driver, static_cast<int>(m), static_cast<int>(n), static_cast<int>(std::max<int64_t>(k, 1)),
                       pa + i * m * n, k == 0 ? zero_column.data() : pb + i * rows * k, static_cast<int>(rows), cutoff,
                       svd ? S.data_ptr<T>() + i * q : nullptr, &r, &info);
      TCORE_CHECK_LINALG(info == 0 || svd, "torch.linalg.lstsq: ", batch_prefix(A, i), "The least squares solution "
                         "could not be computed because the input matrix does not have full rank (error code: ", info,
                         ").");
      TCORE_CHECK_LINALG(info == 0, "torch.linalg.lstsq: ", batch_prefix(A, i), "The algorithm failed to converge "
                         "because the input matrix is ill-conditioned or has too many repeated singular values (error "
                         "code: ", info, ").");
      if (ranked) rank.data_ptr<int64_t>()[i] = r;
      full_rank = full_rank && (!ranked || r == n);
    }
  });
#endif
  Tensor solution = contiguous_copy(tcore::transpose(tcore::narrow(work_b, -1, 0, n), -2, -1));
  Tensor residuals = empty_cpu({0}, A.dtype());
  if (m > n && driver != "gelsy" && full_rank) {  // the rows past n: Q^T B's part no solution reaches
    const Tensor rest = tcore::narrow(work_b, -1, n, m - n);
    residuals = tcore::sum(tcore::mul(rest, rest), std::vector<int64_t>{-1}, false, std::nullopt);
  }
  if (vector) solution = tcore::squeeze(solution, -1);
  return {solution, residuals, rank, S};
}

// A = Q R for A (*, m, n), k = min(m, n): mode "reduced" Q (*, m, k), R (*, k, n); "complete" Q
// (*, m, m), R (*, m, n); "r" R (*, k, n) and an empty Q, as torch's. Row-major A is column-major
// A^T, whose LQ factorization A^T = L Q' is A = Q'^T L^T: gelqf and orglq on A^T give R = L^T and
// Q = Q'^T, each already row-major where LAPACK leaves them (R's row i is L's column i; Q's row i
// is Q''s column i). Householder reflections as geqrf's (torch's): the same signs.
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  TCORE_CHECK_VALUE(mode == "reduced" || mode == "complete" || mode == "r",
                    "qr received unrecognized mode '", mode, "' but expected one of 'reduced' (default), 'r', or 'complete'");
  TCORE_CHECK_VALUE(A.dim() >= 2, "linalg.qr: The input tensor A must have at least 2 dimensions.");
  check_linalg_float(A, "linalg.qr");
  require_lapack("linalg.qr");
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  check_lapack_size(std::max(m, n), "linalg.qr");
  const bool complete = mode == "complete", compute_q = mode != "r";
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  const int64_t count = m == 0 || n == 0 ? 0 : A.numel() / (m * n);
  std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2), qshape = batch, rshape = batch;
  qshape.insert(qshape.end(), {m, qcols});
  rshape.insert(rshape.end(), {rrows, n});
  Tensor Q = compute_q ? empty_cpu(qshape, A.dtype()) : empty_cpu({0}, A.dtype());
  Tensor R = empty_cpu(rshape, A.dtype());
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* pr = R.data_ptr<T>();
    T* pq = compute_q ? Q.data_ptr<T>() : nullptr;
    std::fill_n(pr, R.numel(), T(0));
    if (count == 0) {  // no reflections: Q's columns are the identity's (m x 0 when reduced)
      if (compute_q) {
        std::fill_n(pq, Q.numel(), T(0));
        for (int64_t i = 0; qcols > 0 && i < Q.numel() / (m * qcols); ++i)
          for (int64_t j = 0; j < std::min(m, qcols); ++j) pq[i * m * qcols + j * qcols + j] = T(1);
      }
      return;
    }
#if TCORE_HAVE_BLAS
    const Tensor contiguous = contiguous_copy(A);
    const T* pa = contiguous.data_ptr<T>();
    const int64_t lda = std::max(n, qcols);  // LAPACK's A^T: n rows (then Q' needs qcols), m columns
    std::vector<T> a(static_cast<size_t>(lda * std::max(m, qcols))), tau(static_cast<size_t>(std::max<int64_t>(k, 1)));
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < m; ++i) std::copy_n(pa + (b * m + i) * n, n, a.data() + i * lda);  // column i of A^T
      int info = 0;
      gelqf(static_cast<int>(n), static_cast<int>(m), a.data(), static_cast<int>(lda), tau.data(), &info);
      TCORE_CHECK(info == 0, "linalg.qr: LAPACK's gelqf failed (info ", info, ")");
      for (int64_t i = 0; i < k; ++i)  // R's row i: L's column i, from the diagonal on
        std::copy(a.data() + i * lda + i, a.data() + i * lda + n, pr + (b * rrows + i) * n + i);
      if (!compute_q) continue;
      orglq(static_cast<int>(qcols), static_cast<int>(m), static_cast<int>(k), a.data(), static_cast<int>(lda),
            tau.data(), &info);
      TCORE_CHECK(info == 0, "linalg.qr: LAPACK's orglq failed (info ", info, ")");
      for (int64_t i = 0; i < m; ++i) std::copy_n(a.data() + i * lda, qcols, pq + (b * m + i) * qcols);
    }
#endif
  });
  return {Q, R};
}

// geqrf: QR in LAPACK's compact form, R on and above the diagonal, the reflectors' vectors below
// it, and their scales tau (*, min(m, n)). linalg_qr's LQ of A^T leaves A's compact QR form in
// the row-major buffer as it is: the reflectors of L Q' = A^T are rows of A^T, columns of A.
std::tuple<Tensor, Tensor> geqrf(const Tensor& self) {
  TCORE_CHECK_VALUE(self.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  check_linalg_float(self, "geqrf");
  const int64_t m = self.sizes()[self.dim() - 2], n = self.sizes()[self.dim() - 1], k = std::min(m, n);
  check_lapack_size(std::max(m, n), "geqrf");
  std::vector<int64_t> tau_shape(self.sizes().begin(), self.sizes().end() - 2);
  tau_shape.push_back(k);
  Tensor a = copy_of(self), tau = zeros_cpu(tau_shape, self.dtype());
  const int64_t count = m == 0 || n == 0 ? 0 : self.numel() / (m * n);
  if (count == 0) return {a, tau};
  require_lapack("geqrf");
  dispatch_lapack(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
#if TCORE_HAVE_BLAS
    for (int64_t b = 0; b < count; ++b) {
      int info = 0;
      gelqf(static_cast<int>(n), static_cast<int>(m), a.data_ptr<T>() + b * m * n, static_cast<int>(n),
            tau.data_ptr<T>() + b * k, &info);
      TCORE_CHECK(info == 0, "geqrf: LAPACK's gelqf failed (info ", info, ")");
    }
#endif
  });
  return {a, tau};
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
