// The inverses of views without aliasing (select_scatter, slice_scatter, diagonal_scatter,
// as_strided_scatter: a copy of self whose view's elements are src), and the functional
// counterparts of copy_ and fill_. Functionalization (tcore/core/FunctionalTensor.h)
// writes changed views back into their bases with them. All are a clone plus the view
// and an in-place write on the clone, which nothing else sees.
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
#include <tcore/ops/select.h>
#include <tcore/ops/select_scatter_native.h>
#include <tcore/ops/slice.h>
#include <tcore/ops/slice_scatter_native.h>

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
  Tensor out = tcore::clone(self);  // contiguous, offset 0: the geometry is relative to that layout
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

Tensor fill(const Tensor& self, const Scalar& value) {
  Tensor out = tcore::empty(self.sizes(), self.dtype(), Layout::Strided, self.device());
  return tcore::fill_(out, value);
}

}  // namespace tcore::native
