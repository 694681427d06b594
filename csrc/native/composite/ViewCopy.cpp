// The view_copy operators: a contiguous copy of a view, aliasing nothing (PyTorch's
// select_copy, view_copy, ...). tcore.func.functionalize(fn, remove="mutations_and_views")
// runs them in place of the views; they decompose into the view and clone, so autograd and
// forward-mode AD go through the view's formulas.
#include <tcore/ops/alias.h>
#include <tcore/ops/alias_copy_native.h>
#include <tcore/ops/as_strided.h>
#include <tcore/ops/as_strided_copy_native.h>
#include <tcore/ops/clone.h>
#include <tcore/ops/diagonal.h>
#include <tcore/ops/diagonal_copy_native.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/expand_copy_native.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/permute_copy_native.h>
#include <tcore/ops/select.h>
#include <tcore/ops/select_copy_native.h>
#include <tcore/ops/slice.h>
#include <tcore/ops/slice_copy_native.h>
#include <tcore/ops/split.h>
#include <tcore/ops/split_copy_native.h>
#include <tcore/ops/split_with_sizes.h>
#include <tcore/ops/split_with_sizes_copy_native.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/squeeze_copy_native.h>
#include <tcore/ops/transpose.h>
#include <tcore/ops/transpose_copy_native.h>
#include <tcore/ops/unfold.h>
#include <tcore/ops/unfold_copy_native.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/unsqueeze_copy_native.h>
#include <tcore/ops/view.h>
#include <tcore/ops/view_copy_native.h>

namespace tcore::native {
namespace {

// a contiguous copy whatever the view's layout (PyTorch's *_copy operators clone to contiguous_format)
Tensor packed(const Tensor& view) { return tcore::clone(view, MemoryFormat::Contiguous); }

std::vector<Tensor> clones(const std::vector<Tensor>& pieces) {
  std::vector<Tensor> out;
  out.reserve(pieces.size());
  for (const auto& p : pieces) out.push_back(packed(p));
  return out;
}

}  // namespace

Tensor alias_copy(const Tensor& self) { return packed(tcore::alias(self)); }
Tensor view_copy(const Tensor& self, IntArrayRef size) { return packed(ops::view::call(self, size)); }
Tensor view_copy(const Tensor& self, ScalarType dtype) { return packed(ops::view_dtype::call(self, dtype)); }
Tensor transpose_copy(const Tensor& self, int64_t dim0, int64_t dim1) {
  return packed(tcore::transpose(self, dim0, dim1));
}
Tensor expand_copy(const Tensor& self, IntArrayRef size, bool implicit) {
  return packed(ops::expand::call(self, size, implicit));
}
Tensor permute_copy(const Tensor& self, IntArrayRef dims) { return packed(tcore::permute(self, dims)); }
Tensor unsqueeze_copy(const Tensor& self, int64_t dim) { return packed(tcore::unsqueeze(self, dim)); }
Tensor squeeze_copy(const Tensor& self) { return packed(tcore::squeeze(self)); }
Tensor squeeze_copy(const Tensor& self, int64_t dim) { return packed(tcore::squeeze(self, dim)); }
Tensor squeeze_copy(const Tensor& self, IntArrayRef dim) { return packed(tcore::squeeze(self, dim)); }
Tensor select_copy(const Tensor& self, int64_t dim, int64_t index) {
  return packed(tcore::select(self, dim, index));
}
Tensor slice_copy(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                  int64_t step) {
  return packed(tcore::slice(self, dim, start, end, step));
}
Tensor diagonal_copy(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return packed(tcore::diagonal(self, offset, dim1, dim2));
}
Tensor as_strided_copy(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  return packed(tcore::as_strided(self, size, stride, storage_offset));
}
Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return packed(ops::unfold::call(self, dimension, size, step));
}
std::vector<Tensor> split_copy(const Tensor& self, int64_t split_size, int64_t dim) {
  return clones(tcore::split(self, split_size, dim));
}
std::vector<Tensor> split_with_sizes_copy(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return clones(tcore::split_with_sizes(self, split_sizes, dim));
}

}  // namespace tcore::native
