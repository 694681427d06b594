// _resample and its backward on devices without a kernel of their own (native/cpu/Resample.cpp has
// the CPU's): one index_select (index_add for the backward) per tap, times the tap's weights seen
// along dim.
#include <tcore/ops/_resample_backward_native.h>
#include <tcore/ops/_resample_native.h>
#include <tcore/ops/add.h>
#include <tcore/ops/index_add.h>
#include <tcore/ops/index_select.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/select.h>
#include <tcore/ops/zeros.h>

#include "native/Resample.h"
#include "native/TensorUtils.h"

namespace tcore::native {
namespace {

// row k of the taps' weights, shaped to broadcast along dim d of an n-dim tensor, in dtype t
Tensor weights_along(const Tensor& weights, int64_t k, int64_t d, int64_t n, ScalarType t) {
  std::vector<int64_t> shape(static_cast<size_t>(n - d), 1);
  shape[0] = -1;
  return tcore::reshape(cast(tcore::select(weights, 0, k), t), shape);
}

}  // namespace

Tensor _resample_composite(const Tensor& self, int64_t dim, const Tensor& indices,
                           const std::optional<Tensor>& weights) {
  const int64_t d = wrap_dim(dim, self.dim());
  const ScalarType t = opmath_type(self.dtype());
  const Tensor x = cast(self, t);
  Tensor out;
  for (int64_t k = 0; k < indices.sizes()[0]; ++k) {
    Tensor tap = tcore::index_select(x, d, tcore::select(indices, 0, k));
    if (weights && weights->defined()) tap = tcore::mul(tap, weights_along(*weights, k, d, self.dim(), t));
    out = out.defined() ? tcore::add(out, tap) : tap;
  }
  return cast(out, self.dtype());
}

Tensor _resample_backward_composite(const Tensor& grad, int64_t dim, IntArrayRef input_sizes, const Tensor& indices,
                                    const std::optional<Tensor>& weights) {
  const int64_t d = wrap_dim(dim, grad.dim());
  const ScalarType t = opmath_type(grad.dtype());
  const std::vector<int64_t> shape = resample_input_shape(grad, d, input_sizes);
  Tensor out = tcore::zeros(shape, t, std::nullopt, grad.device());
  const Tensor g = cast(grad, t);
  for (int64_t k = 0; k < indices.sizes()[0]; ++k) {
    const Tensor tap = weights && weights->defined() ? tcore::mul(g, weights_along(*weights, k, d, grad.dim(), t)) : g;
    out = tcore::index_add(out, d, tcore::select(indices, 0, k), tap);
  }
  return cast(out, grad.dtype());
}

}  // namespace tcore::native
