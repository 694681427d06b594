// The gamma family's composites: polygamma in place, and the multivariate log-gamma function
// (their kernels, lgamma, digamma and polygamma, are native/cpu/UnaryOps.cpp's and
// native/cuda/UnaryOpsKernels.cu's).
#include <cmath>

#include <tcore/ops/add.h>
#include <tcore/ops/arange.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/lgamma.h>
#include <tcore/ops/mvlgamma_native.h>
#include <tcore/ops/polygamma.h>
#include <tcore/ops/polygamma_native.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/unsqueeze.h>

#include "native/TensorUtils.h"

namespace tcore::native {

namespace {
// an integer or bool self cannot hold the floating result (torch's in-place error)
void check_in_place(const Tensor& self, const char* op) {
  TCORE_CHECK(is_floating(self.dtype()), op, ": result type ", to_string(floating_of(self.dtype())),
              " can't be cast to the desired output type ", to_string(self.dtype()));
}
}  // namespace

Tensor polygamma_(const Tensor& self, int64_t n) {
  check_in_place(self, "polygamma_");
  return tcore::copy_(self, tcore::polygamma(n, self));
}

// log of the multivariate gamma function of dimension p: sum over j < p of lgamma(x - j/2), plus
// p (p - 1) / 4 log(pi); the terms from x - (p - 1)/2 up to x, summed in that order as torch's.
Tensor mvlgamma(const Tensor& self, int64_t p) {
  TCORE_CHECK(self.dtype() != ScalarType::Bool, "The input tensor may not be a boolean tensor.");
  TCORE_CHECK(p >= 1, "p has to be greater than or equal to 1");
  const ScalarType t = floating_of(self.dtype());
  const Tensor offsets = tcore::arange(Scalar(-static_cast<double>(p - 1) / 2), Scalar(0.5), Scalar(0.5), t,
                                       std::nullopt, self.device(), std::nullopt);
  const Tensor terms = tcore::lgamma(tcore::add(tcore::unsqueeze(self, -1), offsets));
  return tcore::add(tcore::sum(terms, IntArrayRef{-1}, false, std::nullopt),
                    Scalar(static_cast<double>(p) * static_cast<double>(p - 1) * std::log(M_PI) / 4));
}

Tensor mvlgamma_(const Tensor& self, int64_t p) {
  check_in_place(self, "mvlgamma");
  return tcore::copy_(self, mvlgamma(self, p));
}

}  // namespace tcore::native
