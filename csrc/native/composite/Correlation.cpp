// torch.cov and torch.corrcoef (numpy's): the rows of a matrix are variables, its columns
// observations; frequency and reliability weights; torch's checks and messages.
#include <optional>

#include <tcore/ops/clamp.h>
#include <tcore/ops/corrcoef_native.h>
#include <tcore/ops/cov.h>
#include <tcore/ops/cov_native.h>
#include <tcore/ops/diagonal.h>
#include <tcore/ops/div.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/min.h>
#include <tcore/ops/mm.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/ne.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/sqrt.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/t.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/view.h>

#include "native/TensorUtils.h"

namespace tcore::native {

namespace {
bool all_true(const Tensor& t) { return item<bool>(t); }
}  // namespace

// sum_j w_j (x_ij - m_i)(x_kj - m_k) / (W - correction V / W), m the weighted means, W = sum(w),
// V = sum(w a) (W - correction without aweights); w = fweights * aweights
Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  TCORE_CHECK_VALUE(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ",
                    self.dim(), " dimensions");
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, "cov(): bool dtype is not supported for input");
  const Tensor in = self.dim() < 2 ? tcore::reshape(self, {1, -1}) : self;
  const int64_t observations = in.sizes()[1];
  Tensor w;
  if (fweights && fweights->defined()) {
    w = *fweights;
    TCORE_CHECK_VALUE(w.dim() <= 1, "cov(): expected fweights to have one or fewer dimensions but got fweights with ",
                      w.dim(), " dimensions");
    TCORE_CHECK_TYPE(is_integral(w.dtype(), false), "cov(): expected fweights to have integral dtype but got fweights "
                     "with ", w.dtype(), " dtype");
    TCORE_CHECK_VALUE(w.numel() == observations, "cov(): expected fweights to have the same numel as there are "
                      "observations in the input but got ", w.numel(), " != ", observations);
    TCORE_CHECK_VALUE(observations == 0 || all_true(tcore::ge(tcore::min(w), Scalar(0))),
                      "cov(): fweights cannot be negative");
  }
  const bool has_aweights = aweights && aweights->defined();
  if (has_aweights) {
    const Tensor& a = *aweights;
    TCORE_CHECK_VALUE(a.dim() <= 1, "cov(): expected aweights to have one or fewer dimensions but got aweights with ",
                      a.dim(), " dimensions");
    TCORE_CHECK_TYPE(is_floating(a.dtype()), "cov(): expected aweights to have floating point dtype but got aweights "
                     "with ", a.dtype(), " dtype");
    TCORE_CHECK_VALUE(a.numel() == observations, "cov(): expected aweights to have the same numel as there are "
                      "observations in the input but got ", a.numel(), " != ", observations);
    TCORE_CHECK_VALUE(observations == 0 || all_true(tcore::ge(tcore::min(a), Scalar(0))),
                      "cov(): aweights cannot be negative");
    w = w.defined() ? tcore::mul(w, a) : a;
  }
  const Tensor w_sum = w.defined() ? tcore::sum(w, std::optional<ScalarType>()) : Tensor();
  TCORE_CHECK_VALUE(!w.defined() || all_true(tcore::ne(w_sum, Scalar(0))), "cov(): weights sum to zero, can't be normalized");
  const Tensor weighted = w.defined() ? tcore::mul(in, w) : in;
  const Tensor sums = tcore::sum(weighted, IntArrayRef({1}), false, std::nullopt);
  const Tensor avg = w.defined() ? tcore::div(sums, w_sum) : tcore::div(sums, Scalar(observations));
  Tensor norm;
  double norm_value = static_cast<double>(observations - correction);
  if (w.defined()) {
    norm = has_aweights && correction != 0
               ? tcore::sub(w_sum, tcore::div(tcore::mul(tcore::sum(tcore::mul(w, *aweights), std::optional<ScalarType>()),
                                                         Scalar(correction)), w_sum))
               : tcore::sub(w_sum, Scalar(correction));
    norm_value = item<double>(norm);
  }
  if (norm_value <= 0) {
    warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.");
    norm = Tensor();
    norm_value = 0;
  }
  const Tensor centered = tcore::sub(in, tcore::unsqueeze(avg, 1));
  const Tensor c = tcore::mm(centered, tcore::t(w.defined() ? tcore::mul(centered, w) : centered));
  return tcore::squeeze(norm.defined() ? tcore::div(c, norm) : tcore::div(c, Scalar(norm_value)));
}

// cov scaled by the standard deviations, clipped to [-1, 1]; a single variable: c / c (NaN where
// its variance is 0, inf or NaN, else 1)
Tensor corrcoef(const Tensor& self) {
  TCORE_CHECK_VALUE(self.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
                    self.dim(), " dimensions");
  Tensor c = tcore::cov(self, 1, std::nullopt, std::nullopt);
  if (c.dim() == 0) return tcore::div(c, c);
  const Tensor stddev = tcore::sqrt(tcore::diagonal(c, 0, 0, 1));
  c = tcore::div(c, tcore::view(stddev, {-1, 1}));
  c = tcore::div(c, tcore::view(stddev, {1, -1}));
  return tcore::clamp(c, Scalar(-1), Scalar(1));
}

}  // namespace tcore::native
