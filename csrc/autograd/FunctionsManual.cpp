#include "autograd/FunctionsManual.h"

#include <tcore/ops/contiguous.h>
#include <tcore/ops/div.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/pow.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/view.h>
#include <tcore/ops/zeros.h>

namespace tcore::autograd::manual {

Tensor maybe_multiply(const Tensor& grad, const Scalar& alpha) {
  const bool one = alpha.is_floating_point() ? alpha.to_double() == 1.0 : alpha.to_long() == 1;
  return one ? grad : tcore::mul(grad, alpha);
}

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (!keepdim && n > 0 && dim.has_value() && !dim->empty()) {
    std::vector<bool> reduced(n, false);
    for (int64_t d : *dim) reduced[wrap_dim(d, n)] = true;
    std::vector<int64_t> kept;  // the gradient's shape with the reduced dims put back as 1
    for (int64_t i = 0; i < n; ++i) kept.push_back(reduced[i] ? 1 : sizes[i]);
    return tcore::expand(tcore::view(tcore::contiguous(grad), kept), sizes);
  }
  if (!keepdim && n > 0) {
    return tcore::expand(tcore::view(tcore::contiguous(grad), std::vector<int64_t>(n, 1)), sizes);
  }
  return tcore::expand(grad, sizes);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim) {
  int64_t count = 1;
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (dim.has_value() && !dim->empty()) {
    for (int64_t d : *dim) count *= n ? sizes[wrap_dim(d, n)] : 1;
  } else {
    count = numel_of(sizes);
  }
  return tcore::div(sum_backward(grad, sizes, dim, keepdim), count);
}

Tensor view_backward(const Tensor& grad, IntArrayRef sizes) { return tcore::view(tcore::contiguous(grad), sizes); }

Tensor sum_to_size(const Tensor& grad, IntArrayRef sizes) {
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < grad.dim(); ++i) {
    if (i < lead || (sizes[i - lead] == 1 && grad.sizes()[i] != 1)) dims.push_back(i);
  }
  if (dims.empty()) return grad;
  return tcore::view(tcore::contiguous(tcore::sum(grad, IntArrayRef(dims), true)), sizes);
}

Tensor zeros_like(const Tensor& t) { return tcore::zeros(t.sizes(), t.dtype(), std::nullopt, t.device()); }

Tensor pow_scalar_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent) {
  const double e = exponent.to_double();
  if (e == 0.0) return zeros_like(grad);
  return tcore::mul(tcore::mul(grad, exponent), tcore::pow(self, Scalar(e - 1.0)));
}

Tensor permute_backward(const Tensor& grad, IntArrayRef dims) {
  const int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(n);
  for (int64_t i = 0; i < n; ++i) inverse[wrap_dim(dims[i], n)] = i;
  return tcore::permute(grad, inverse);
}

Tensor unsqueeze_to(const Tensor& grad, int64_t dim, IntArrayRef sizes) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (n == 0) return tcore::reshape(grad, sizes);
  const int64_t d = wrap_dim(dim, n);
  return sizes[d] == 1 && grad.dim() < n ? tcore::unsqueeze(grad, d) : grad;
}

Tensor unsqueeze_to(const Tensor& grad, IntArrayRef sizes) { return tcore::reshape(grad, sizes); }

}  // namespace tcore::autograd::manual
