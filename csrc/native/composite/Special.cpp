// torch.special's functions over tcore's operators (python_module: special in
// native_functions.yaml): each a CompositeImplicitAutograd kernel, so autograd, forward AD and
// every backend come from the operators it calls.
#include <cmath>
#include <optional>

#include <tcore/ops/add.h>
#include <tcore/ops/clamp.h>
#include <tcore/ops/digamma.h>
#include <tcore/ops/div.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/erf.h>
#include <tcore/ops/erfc.h>
#include <tcore/ops/erfinv.h>
#include <tcore/ops/exp2.h>
#include <tcore/ops/expm1.h>
#include <tcore/ops/full_like.h>
#include <tcore/ops/gt.h>
#include <tcore/ops/isnan.h>
#include <tcore/ops/lgamma.h>
#include <tcore/ops/log.h>
#include <tcore/ops/log1p.h>
#include <tcore/ops/log_softmax.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/logical_not.h>
#include <tcore/ops/logical_or.h>
#include <tcore/ops/logsumexp.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/mvlgamma.h>
#include <tcore/ops/neg.h>
#include <tcore/ops/polygamma.h>
#include <tcore/ops/round.h>
#include <tcore/ops/sigmoid.h>
#include <tcore/ops/sinc.h>
#include <tcore/ops/softmax.h>
#include <tcore/ops/special_digamma_native.h>
#include <tcore/ops/special_entr_native.h>
#include <tcore/ops/special_erf_native.h>
#include <tcore/ops/special_erfc_native.h>
#include <tcore/ops/special_erfinv_native.h>
#include <tcore/ops/special_exp2_native.h>
#include <tcore/ops/special_expit_native.h>
#include <tcore/ops/special_expm1_native.h>
#include <tcore/ops/special_gammaln_native.h>
#include <tcore/ops/special_log1p_native.h>
#include <tcore/ops/special_log_softmax_native.h>
#include <tcore/ops/special_logit_native.h>
#include <tcore/ops/special_logsumexp_native.h>
#include <tcore/ops/special_multigammaln_native.h>
#include <tcore/ops/special_ndtr_native.h>
#include <tcore/ops/special_i0_native.h>
#include <tcore/ops/i0.h>
#include <tcore/ops/special_polygamma_native.h>
#include <tcore/ops/special_psi_native.h>
#include <tcore/ops/special_round_native.h>
#include <tcore/ops/special_sinc_native.h>
#include <tcore/ops/special_softmax_native.h>
#include <tcore/ops/special_xlog1py_native.h>
#include <tcore/ops/special_xlogy_native.h>
#include <tcore/ops/to.h>
#include <tcore/ops/where.h>
#include <tcore/ops/xlogy.h>

#include "native/TensorUtils.h"

namespace tcore::native {

Tensor special_erf(const Tensor& self) { return tcore::erf(self); }
Tensor special_expit(const Tensor& self) { return tcore::sigmoid(self); }
Tensor special_exp2(const Tensor& self) { return tcore::exp2(self); }
Tensor special_expm1(const Tensor& self) { return tcore::expm1(self); }
Tensor special_log1p(const Tensor& self) { return tcore::log1p(self); }
Tensor special_gammaln(const Tensor& self) { return tcore::lgamma(self); }
Tensor special_digamma(const Tensor& self) { return tcore::digamma(self); }
Tensor special_psi(const Tensor& self) { return tcore::digamma(self); }
Tensor special_polygamma(int64_t n, const Tensor& self) { return tcore::polygamma(n, self); }
Tensor special_multigammaln(const Tensor& self, int64_t p) { return tcore::mvlgamma(self, p); }
Tensor special_erfc(const Tensor& self) { return tcore::erfc(self); }
Tensor special_i0(const Tensor& self) { return tcore::i0(self); }
Tensor special_erfinv(const Tensor& self) { return tcore::erfinv(self); }
Tensor special_sinc(const Tensor& self) { return tcore::sinc(self); }
Tensor special_round(const Tensor& self, int64_t decimals) { return tcore::round(self, decimals); }
// the standard normal CDF: erfc(-x / sqrt(2)) / 2 (no cancellation far below 0)
Tensor special_ndtr(const Tensor& self) {
  return tcore::mul(tcore::erfc(tcore::mul(self, Scalar(-0.70710678118654752440))), Scalar(0.5));
}

// -x log(x) for x > 0, 0 at 0, -inf below (and NaN for NaN), in the floating dtype
Tensor special_entr(const Tensor& self) {
  const Tensor x = is_floating(self.dtype()) ? self : tcore::to(self, floating_of(self.dtype()), false, false, std::nullopt);
  const Tensor inside = tcore::neg(tcore::mul(x, tcore::log(x)));
  const Tensor edge = tcore::where(tcore::eq(x, Scalar(0)), Scalar(0.0), tcore::full_like(x, Scalar(-INFINITY)));
  return tcore::where(tcore::logical_or(tcore::gt(x, Scalar(0)), tcore::isnan(x)), inside, edge);
}

// x log1p(y), 0 where x == 0 and y is not NaN; both in their promoted floating dtype
Tensor special_xlog1py(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(promoted(self, other));
  const Tensor x = tcore::to(self, t, false, false, std::nullopt), y = tcore::to(other, t, false, false, std::nullopt);
  const Tensor zero = tcore::logical_and(tcore::eq(x, Scalar(0)), tcore::logical_not(tcore::isnan(y)));
  return tcore::where(zero, Scalar(0.0), tcore::mul(x, tcore::log1p(y)));
}

Tensor special_xlogy(const Tensor& self, const Tensor& other) { return tcore::xlogy(self, other); }
Tensor special_xlogy(const Scalar& self, const Tensor& other) { return tcore::xlogy(self, other); }
Tensor special_xlogy(const Tensor& self, const Scalar& other) { return tcore::xlogy(self, other); }

// log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given (then the gradient is zero
// outside that range, as torch's logit_backward has it)
Tensor special_logit(const Tensor& self, std::optional<double> eps) {
  const Tensor x = eps ? tcore::clamp(self, std::optional<Scalar>(*eps), std::optional<Scalar>(1.0 - *eps)) : self;
  return tcore::log(tcore::div(x, tcore::add(tcore::neg(x), Scalar(1))));
}

Tensor special_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tcore::softmax(self, dim, dtype);
}
Tensor special_log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tcore::log_softmax(self, dim, dtype);
}
Tensor special_logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return tcore::logsumexp(self, dim, keepdim);
}

}  // namespace tcore::native
