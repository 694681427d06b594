// linalg.householder_product (orgqr): Q = (H_1 ... H_k)[:, :n] with H_i = I - tau_i v_i v_i^H, v_i
// the i-th column of input below the diagonal with an implicit 1 on it (LAPACK's geqrf form).
// Applied to the first n columns of the identity from the last reflector to the first, each a
// rank-one update Q -= tau_i v_i (v_i^H Q): operators throughout, so its gradient and tangents
// are theirs (the orthogonal parametrization's householder map differentiates through it).
#include <tcore/ops/add.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/eye.h>
#include <tcore/ops/linalg_householder_product_native.h>
#include <tcore/ops/matmul.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/orgqr_native.h>
#include <tcore/ops/select.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/where.h>
#include <tcore/ops/zeros.h>

#include "native/TensorUtils.h"

namespace tcore::native {

Tensor linalg_householder_product(const Tensor& input, const Tensor& tau) {
  constexpr const char* op = "torch.linalg.householder_product: ";
  TCORE_CHECK_VALUE(input.dim() >= 2, op, "input must have at least 2 dimensions.");
  TCORE_CHECK_VALUE(tau.dim() == input.dim() - 1, op, "Expected tau to have one dimension less than input, but got "
                    "tau.ndim equal to ", tau.dim(), " and input.ndim is equal to ", input.dim());
  const int64_t m = input.sizes()[input.dim() - 2], n = input.sizes()[input.dim() - 1];
  const int64_t k = tau.sizes()[tau.dim() - 1];
  TCORE_CHECK_VALUE(m >= n, op, "input.shape[-2] must be greater than or equal to input.shape[-1]");
  TCORE_CHECK_VALUE(n >= k, op, "input.shape[-1] must be greater than or equal to tau.shape[-1]");
  const std::vector<int64_t> batch(input.sizes().begin(), input.sizes().end() - 2);
  TCORE_CHECK_VALUE(std::vector<int64_t>(tau.sizes().begin(), tau.sizes().end() - 1) == batch, op,
                    "Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
                    shape_str(IntArrayRef(tau.sizes().data(), tau.sizes().size() - 1)));
  TCORE_CHECK_TYPE(tau.dtype() == input.dtype(), op, "tau dtype ", to_string(tau.dtype()),
                   " does not match input dtype ", to_string(input.dtype()));
  TCORE_CHECK_TYPE(is_floating(input.dtype()), op, "expected a floating point input, got ", to_string(input.dtype()));
  std::vector<int64_t> shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  Tensor q = tcore::expand(tcore::eye(m, n, input.dtype(), std::nullopt, input.device()), shape);
  if (k == 0) {  // no reflector: the identity's columns, still a function of input and tau (zero gradients, as torch's)
    const Tensor none = tcore::zeros(shape, ScalarType::Bool, std::nullopt, input.device());
    return tcore::add(tcore::where(none, input, q), tcore::unsqueeze(tcore::sum(tau, IntArrayRef({-1}), true), -1));
  }
  for (int64_t i = k - 1; i >= 0; --i) {
    // v: zeros above row i, 1 at it, the input's column i below it
    std::vector<int64_t> head = batch, one = batch;
    head.push_back(i);
    one.push_back(1);
    const Tensor below = tcore::narrow(tcore::select(input, -1, i), -1, i + 1, m - i - 1);
    const Tensor v = tcore::cat({tcore::zeros(head, input.dtype(), std::nullopt, input.device()),
                                 tcore::ones(one, input.dtype(), std::nullopt, input.device()), below},
                                -1);
    const Tensor vh_q = tcore::matmul(tcore::unsqueeze(v, -2), q);  // (..., 1, n); real: v^H = v^T
    const Tensor scale = tcore::unsqueeze(tcore::unsqueeze(tcore::select(tau, -1, i), -1), -1);
    q = tcore::sub(q, tcore::mul(scale, tcore::mul(tcore::unsqueeze(v, -1), vh_q)));
  }
  return q;
}

Tensor orgqr(const Tensor& self, const Tensor& input2) { return linalg_householder_product(self, input2); }

}  // namespace tcore::native
