// The out= overloads of the operators that return several tensors: (values, indices) of max.dim_max,
// min.dim_min, sort.values, topk.values, kthvalue.values, median.dim_values, cummax.out,
// cummin.out, max_pool2d_with_indices.out, _linalg_solve_ex.result, linalg_solve_ex.out,
// _linalg_det.result, _linalg_slogdet.sign, svd.U, geqrf.a, (sign, logabsdet) of linalg_slogdet.out and
// slogdet.out, (eigenvalues, eigenvectors) of linalg_eigh.eigvals, and (U, S, Vh) of
// linalg_svd.U and _linalg_svd.U, with
// PyTorch's schemas (their outs named as PyTorch names them, which `autogen:` cannot spell).
// Each computes the functional result and copies it into its outs as the generated autogen
// kernels do: resized as PyTorch's resize_output does (a warning when a non-empty out changes
// shape), cast to the out's dtype, the outs returned.
#include <optional>
#include <string_view>
#include <tuple>

#include <tcore/core/Autogen.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/cummax.h>
#include <tcore/ops/cummax_native.h>
#include <tcore/ops/cummin.h>
#include <tcore/ops/cummin_native.h>
#include <tcore/ops/geqrf.h>
#include <tcore/ops/geqrf_native.h>
#include <tcore/ops/kthvalue.h>
#include <tcore/ops/kthvalue_native.h>
#include <tcore/ops/_linalg_svd.h>
#include <tcore/ops/_linalg_svd_native.h>
#include <tcore/ops/linalg_eigh.h>
#include <tcore/ops/linalg_svd.h>
#include <tcore/ops/linalg_svd_native.h>
#include <tcore/ops/linalg_eigh_native.h>
#include <tcore/ops/linalg_qr.h>
#include <tcore/ops/linalg_cholesky_ex_native.h>
#include <tcore/ops/linalg_cholesky_ex.h>
#include <tcore/ops/linalg_inv_ex_native.h>
#include <tcore/ops/linalg_inv_ex.h>
#include <tcore/ops/linalg_lstsq_native.h>
#include <tcore/ops/linalg_lstsq.h>
#include <tcore/ops/lu_unpack_native.h>
#include <tcore/ops/lu_unpack.h>
#include <tcore/ops/linalg_lu_native.h>
#include <tcore/ops/linalg_lu.h>
#include <tcore/ops/linalg_lu_factor_ex_native.h>
#include <tcore/ops/linalg_lu_factor_ex.h>
#include <tcore/ops/linalg_lu_factor_native.h>
#include <tcore/ops/linalg_lu_factor.h>
#include <tcore/ops/linalg_qr_native.h>
#include <tcore/ops/qr.h>
#include <tcore/ops/qr_native.h>
#include <tcore/ops/linalg_slogdet.h>
#include <tcore/ops/_linalg_det.h>
#include <tcore/ops/_linalg_det_native.h>
#include <tcore/ops/_linalg_slogdet.h>
#include <tcore/ops/_linalg_slogdet_native.h>
#include <tcore/ops/_linalg_solve_ex.h>
#include <tcore/ops/_linalg_solve_ex_native.h>
#include <tcore/ops/linalg_solve_ex.h>
#include <tcore/ops/linalg_solve_ex_native.h>
#include <tcore/ops/svd.h>
#include <tcore/ops/triangular_solve.h>
#include <tcore/ops/triangular_solve_native.h>
#include <tcore/ops/svd_native.h>
#include <tcore/ops/linalg_slogdet_native.h>
#include <tcore/ops/slogdet_native.h>
#include <tcore/ops/max.h>
#include <tcore/ops/max_native.h>
#include <tcore/ops/max_pool2d_with_indices.h>
#include <tcore/ops/max_pool2d_with_indices_native.h>
#include <tcore/ops/aminmax.h>
#include <tcore/ops/aminmax_native.h>
#include <tcore/ops/frexp.h>
#include <tcore/ops/frexp_native.h>
#include <tcore/ops/median.h>
#include <tcore/ops/mode.h>
#include <tcore/ops/mode_native.h>
#include <tcore/ops/nanmedian.h>
#include <tcore/ops/nanmedian_native.h>
#include <tcore/ops/median_native.h>
#include <tcore/ops/min.h>
#include <tcore/ops/min_native.h>
#include <tcore/ops/sort.h>
#include <tcore/ops/sort_native.h>
#include <tcore/ops/topk.h>
#include <tcore/ops/topk_native.h>

#include "native/TensorUtils.h"

namespace tcore::native {
namespace {

using Pair = ::std::tuple<Tensor, Tensor>;
using Triple = ::std::tuple<Tensor, Tensor, Tensor>;

void copy_into(const Tensor& out, const Tensor& result, const char* op) {
  autogen::resize_out(out, result.sizes(), op);
  tcore::copy_(out, result);
}

// How a pair's outs take their results: (values, indices) with int64 indices and cast values;
// each out of its result's dtype, as the generated kernels check; or each cast into any out its
// result's dtype can be cast to (torch's geqrf).
enum class Outs { Indices, Exact, Castable };

void check_castable(const Tensor& out, const Tensor& result, const char* name, const char* op) {
  TCORE_CHECK_TYPE(can_cast(result.dtype(), out.dtype()), op, ": Expected ", name, " to be safely castable from ",
                   to_string(result.dtype()), " dtype, but got ", name, " with dtype ", to_string(out.dtype()));
}

Pair into(const Pair& result, const Tensor& values, const Tensor& indices, const char* op, Outs outs = Outs::Indices,
          const char* values_name = "values", const char* indices_name = "indices") {
  if (outs == Outs::Exact) {
    autogen::check_out(values, std::get<0>(result), false);
    autogen::check_out(indices, std::get<1>(result), false);
  } else if (outs == Outs::Castable) {
    check_castable(values, std::get<0>(result), values_name, op);
    check_castable(indices, std::get<1>(result), indices_name, op);
  } else {
    TCORE_CHECK_TYPE(indices.dtype() == ScalarType::Long, op, ": Expected out tensor to have dtype int64_t, but got ",
                     to_string(indices.dtype()), " instead");
  }
  copy_into(values, std::get<0>(result), op);
  copy_into(indices, std::get<1>(result), op);
  return Pair(values, indices);
}

Triple into(const Triple& result, const Tensor& a, const Tensor& b, const Tensor& c, const char* op) {
  autogen::check_out(a, std::get<0>(result), false);
  autogen::check_out(b, std::get<1>(result), false);
  autogen::check_out(c, std::get<2>(result), false);
  copy_into(a, std::get<0>(result), op);
  copy_into(b, std::get<1>(result), op);
  copy_into(c, std::get<2>(result), op);
  return Triple(a, b, c);
}

using Quad = ::std::tuple<Tensor, Tensor, Tensor, Tensor>;
Quad into(const Quad& result, const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& d, const char* op) {
  const auto [w, x, y] = into(Triple(std::get<0>(result), std::get<1>(result), std::get<2>(result)), a, b, c, op);
  autogen::check_out(d, std::get<3>(result), false);
  copy_into(d, std::get<3>(result), op);
  return Quad(a, b, c, d);
}

}  // namespace

Pair max_dim_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& max, const Tensor& max_values) {
  return into(tcore::max(self, dim, keepdim), max, max_values, "max.dim_max");
}

Pair min_dim_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& min, const Tensor& min_indices) {
  return into(tcore::min(self, dim, keepdim), min, min_indices, "min.dim_min");
}

Pair sort_values_out(const Tensor& self, int64_t dim, bool descending, const Tensor& values, const Tensor& indices) {
  return into(tcore::sort(self, dim, descending), values, indices, "sort.values");
}

Pair sort_stable_values_out(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending,
                            const Tensor& values, const Tensor& indices) {
  return into(tcore::sort(self, stable, dim, descending), values, indices, "sort.values_stable");
}

Pair topk_values_out(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted, const Tensor& values,
                     const Tensor& indices) {
  return into(tcore::topk(self, k, dim, largest, sorted), values, indices, "topk.values");
}

Pair kthvalue_values_out(const Tensor& self, int64_t k, int64_t dim, bool keepdim, const Tensor& values,
                         const Tensor& indices) {
  return into(tcore::kthvalue(self, k, dim, keepdim), values, indices, "kthvalue.values");
}

Pair median_dim_values_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values, const Tensor& indices) {
  return into(tcore::median(self, dim, keepdim), values, indices, "median.dim_values");
}

Pair aminmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& min, const Tensor& max) {
  return into(tcore::aminmax(self, dim, keepdim), min, max, "aminmax.out", Outs::Exact);
}

Pair frexp_out(const Tensor& self, const Tensor& mantissa, const Tensor& exponent) {
  return into(tcore::frexp(self), mantissa, exponent, "frexp.Tensor_out", Outs::Exact);
}

Pair nanmedian_dim_values_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,
                              const Tensor& indices) {
  return into(tcore::nanmedian(self, dim, keepdim), values, indices, "nanmedian.dim_values");
}

Pair mode_values_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values, const Tensor& indices) {
  return into(tcore::mode(self, dim, keepdim), values, indices, "mode.values");
}

Pair max_pool2d_with_indices_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                 IntArrayRef dilation, bool ceil_mode, const Tensor& out, const Tensor& indices) {
  return into(tcore::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode), out, indices,
              "max_pool2d_with_indices.out");
}

Pair cummax_values_out(const Tensor& self, int64_t dim, const Tensor& values, const Tensor& indices) {
  return into(tcore::cummax(self, dim), values, indices, "cummax.out");
}

Pair cummin_values_out(const Tensor& self, int64_t dim, const Tensor& values, const Tensor& indices) {
  return into(tcore::cummin(self, dim), values, indices, "cummin.out");
}

Quad _linalg_solve_ex_out(const Tensor& A, const Tensor& B, bool left, bool check_errors, const Tensor& result,
                          const Tensor& LU, const Tensor& pivots, const Tensor& info) {
  return into(tcore::_linalg_solve_ex(A, B, left, check_errors), result, LU, pivots, info, "_linalg_solve_ex.result");
}

Pair linalg_solve_ex_out(const Tensor& A, const Tensor& B, bool left, bool check_errors, const Tensor& result,
                         const Tensor& info) {
  return into(tcore::linalg_solve_ex(A, B, left, check_errors), result, info, "linalg_solve_ex.out", Outs::Exact);
}

Pair triangular_solve_out(const Tensor& self, const Tensor& A, bool upper, bool transpose, bool unitriangular,
                          const Tensor& X, const Tensor& M) {
  return into(tcore::triangular_solve(self, A, upper, transpose, unitriangular), X, M, "triangular_solve.X", Outs::Exact);
}

Triple svd_out(const Tensor& self, bool some, bool compute_uv, const Tensor& U, const Tensor& S, const Tensor& V) {
  return into(tcore::svd(self, some, compute_uv), U, S, V, "svd.U");
}

Triple _linalg_det_out(const Tensor& A, const Tensor& result, const Tensor& LU, const Tensor& pivots) {
  return into(tcore::_linalg_det(A), result, LU, pivots, "_linalg_det.result");
}

Quad _linalg_slogdet_out(const Tensor& A, const Tensor& sign, const Tensor& logabsdet, const Tensor& LU,
                         const Tensor& pivots) {
  return into(tcore::_linalg_slogdet(A), sign, logabsdet, LU, pivots, "_linalg_slogdet.sign");
}

Pair linalg_slogdet_out(const Tensor& A, const Tensor& sign, const Tensor& logabsdet) {
  return into(tcore::linalg_slogdet(A), sign, logabsdet, "linalg_slogdet.out", Outs::Exact);
}

Pair slogdet_out(const Tensor& self, const Tensor& sign, const Tensor& logabsdet) {
  return into(tcore::linalg_slogdet(self), sign, logabsdet, "slogdet.out", Outs::Exact);
}

Pair linalg_eigh_out(const Tensor& self, std::string_view UPLO, const Tensor& eigvals, const Tensor& eigvecs) {
  return into(tcore::linalg_eigh(self, UPLO), eigvals, eigvecs, "linalg_eigh.eigvals", Outs::Exact);
}

Pair linalg_inv_ex_out(const Tensor& A, bool check_errors, const Tensor& inverse, const Tensor& info) {
  return into(tcore::linalg_inv_ex(A, check_errors), inverse, info, "linalg_inv_ex.inverse", Outs::Exact);
}

Pair linalg_cholesky_ex_out(const Tensor& self, bool upper, bool check_errors, const Tensor& L, const Tensor& info) {
  return into(tcore::linalg_cholesky_ex(self, upper, check_errors), L, info, "linalg_cholesky_ex.L", Outs::Exact);
}

Pair linalg_qr_out(const Tensor& A, std::string_view mode, const Tensor& Q, const Tensor& R) {
  return into(tcore::linalg_qr(A, mode), Q, R, "linalg_qr.out", Outs::Exact);
}

Pair geqrf_out(const Tensor& self, const Tensor& a, const Tensor& tau) {
  return into(tcore::geqrf(self), a, tau, "torch.geqrf", Outs::Castable, "a", "tau");
}

Pair qr_out(const Tensor& self, bool some, const Tensor& Q, const Tensor& R) {
  return into(tcore::qr(self, some), Q, R, "qr.Q", Outs::Exact);
}

Pair linalg_lu_factor_out(const Tensor& A, bool pivot, const Tensor& LU, const Tensor& pivots) {
  return into(tcore::linalg_lu_factor(A, pivot), LU, pivots, "linalg_lu_factor.out", Outs::Exact);
}

Triple linalg_lu_factor_ex_out(const Tensor& A, bool pivot, bool check_errors, const Tensor& LU, const Tensor& pivots,
                               const Tensor& info) {
  return into(tcore::linalg_lu_factor_ex(A, pivot, check_errors), LU, pivots, info, "linalg_lu_factor_ex.out");
}

Triple linalg_lu_out(const Tensor& A, bool pivot, const Tensor& P, const Tensor& L, const Tensor& U) {
  return into(tcore::linalg_lu(A, pivot), P, L, U, "linalg_lu.out");
}

Triple lu_unpack_out(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data, bool unpack_pivots,
                     const Tensor& P, const Tensor& L, const Tensor& U) {
  return into(tcore::lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots), P, L, U, "lu_unpack.out");
}

Quad linalg_lstsq_out(const Tensor& self, const Tensor& b, std::optional<double> rcond,
                      std::optional<std::string_view> driver, const Tensor& solution, const Tensor& residuals,
                      const Tensor& rank, const Tensor& singular_values) {
  return into(tcore::linalg_lstsq(self, b, rcond, driver), solution, residuals, rank, singular_values,
              "linalg_lstsq.out");
}

Triple linalg_svd_out(const Tensor& A, bool full_matrices, std::optional<std::string_view> driver, const Tensor& U,
                      const Tensor& S, const Tensor& Vh) {
  return into(tcore::linalg_svd(A, full_matrices, driver), U, S, Vh, "linalg_svd.U");
}

Triple _linalg_svd_out(const Tensor& A, bool full_matrices, bool compute_uv, std::optional<std::string_view> driver,
                       const Tensor& U, const Tensor& S, const Tensor& Vh) {
  return into(tcore::_linalg_svd(A, full_matrices, compute_uv, driver), U, S, Vh, "_linalg_svd.U");
}

}  // namespace tcore::native
