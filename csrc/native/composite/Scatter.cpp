// The inverses of views without aliasing (select_scatter, slice_scatter, diagonal_scatter,
// as_strided_scatter: a copy of self whose view's elements are src), and the functional
// counterparts of copy_, fill_, the random in-place operators and _fused_adam_.
// Functionalization (tcore/core/FunctionalTensor.h) runs them instead of the in-place forms.
// Each writes in place only into fresh tensors, which nothing else sees.
#include <tcore/ops/_fused_adam.h>
#include <tcore/ops/_fused_adam_native.h>
#include <tcore/ops/as_strided.h>
#include <tcore/ops/as_strided_scatter_native.h>
#include <tcore/ops/clone.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/copy_native.h>
#include <tcore/ops/diagonal.h>
#include <tcore/ops/diagonal_scatter_native.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/fill.h>
#include <tcore/ops/fill_native.h>
#include <tcore/ops/normal.h>
#include <tcore/ops/normal_functional_native.h>
#include <tcore/ops/random.h>
#include <tcore/ops/random_native.h>
#include <tcore/ops/select.h>
#include <tcore/ops/select_scatter_native.h>
#include <tcore/ops/slice.h>
#include <tcore/ops/slice_scatter_native.h>
#include <tcore/ops/uniform.h>
#include <tcore/ops/uniform_native.h>

#include "native/TensorUtils.h"
#include "tcore/core/Macros.h"

namespace tcore::native {
namespace {

// PyTorch's rule: src has exactly the view's shape (no broadcasting).
Tensor write_view(const Tensor& out, const Tensor& view, const Tensor& src, const char* op) {
  TCORE_CHECK(view.sizes().vec() == src.sizes().vec(), op, ": expected src to have a size equal to the slice of self. src size = ",
              shape_str(src.sizes()), ", slice size = ", shape_str(view.sizes()));
  tcore::copy_(view, src);
  return out;
}

}  // namespace

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  Tensor out = tcore::clone(self);
  return write_view(out, tcore::select(out, dim, index), src, "select_scatter");
}

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  Tensor out = tcore::clone(self);
  return write_view(out, tcore::slice(out, dim, start, end, step), src, "slice_scatter");
}

Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = tcore::clone(self);
  return write_view(out, tcore::diagonal(out, offset, dim1, dim2), src, "diagonal_scatter");
}

Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) {
  Tensor out = tcore::clone(self, MemoryFormat::Contiguous);  // offset 0: the geometry is relative to that layout
  Tensor view = tcore::as_strided(out, size, stride, storage_offset.value_or(0));
  for (size_t d = 0; d < view.sizes().size(); ++d) {
    TCORE_CHECK(view.sizes()[d] <= 1 || view.strides()[d] != 0,
                "as_strided_scatter: unsupported operation: the view has overlapping elements (stride 0 in dim ", d, ")");
  }
  return write_view(out, view, src, "as_strided_scatter");
}

Tensor copy(const Tensor& self, const Tensor& src, bool non_blocking) {
  Tensor out = tcore::empty(self.sizes(), self.dtype(), Layout::Strided, self.device());
  return tcore::copy_(out, src, non_blocking);
}

Tensor uniform(const Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  Tensor out = tcore::empty(self.sizes(), self.dtype(), Layout::Strided, self.device());
  return ops::uniform_::call(out, from, to, generator);
}

Tensor normal_functional(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  Tensor out = tcore::empty(self.sizes(), self.dtype(), Layout::Strided, self.device());
  return ops::normal_::call(out, mean, std, generator);
}

// random_(to): [0, to - 1]; random_(): every integer the dtype holds from 0 (torch's random_(0, None))
Tensor random_to_(const Tensor& self, int64_t to, const std::optional<Generator>& generator) {
  return ops::random__from::call(self, 0, to, generator);
}
Tensor random_full_(const Tensor& self, const std::optional<Generator>& generator) {
  return ops::random__from::call(self, 0, std::nullopt, generator);
}

Tensor random(const Tensor& self, int64_t from, std::optional<int64_t> to, const std::optional<Generator>& generator) {
  Tensor out = tcore::empty(self.sizes(), self.dtype(), Layout::Strided, self.device());
  return ops::random__from::call(out, from, to, generator);
}

std::tuple<Tensor, Tensor, Tensor> _fused_adam(const Tensor& self, const Tensor& grad, const Tensor& exp_avg,
                                               const Tensor& exp_avg_sq, double lr, double beta1, double beta2,
                                               double eps, double weight_decay, double step, bool decoupled,
                                               bool maximize) {
  Tensor p = tcore::clone(self), m = tcore::clone(exp_avg), v = tcore::clone(exp_avg_sq);
  ops::_fused_adam_::call(p, grad, m, v, lr, beta1, beta2, eps, weight_decay, step, decoupled, maximize);
  return {p, m, v};
}

Tensor fill(const Tensor& self, const Scalar& value) {
  Tensor out = tcore::empty(self.sizes(), self.dtype(), Layout::Strided, self.device());
  return tcore::fill_(out, value);
}

// fill_ with a 0-dim tensor's value (its gradient: the sum of self's)
Tensor fill_tensor_(const Tensor& self, const Tensor& value) {
  TCORE_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  return ops::fill__Scalar::call(self, masked_fill_value(value));
}
Tensor fill(const Tensor& self, const Tensor& value) {
  Tensor out = tcore::empty(self.sizes(), self.dtype(), Layout::Strided, self.device());
  return fill_tensor_(out, value);
}

}  // namespace tcore::native
