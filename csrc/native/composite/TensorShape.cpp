// Views (view, transpose) and the copies built on copy_ (contiguous, clone).
// Views are device-agnostic metadata changes: new sizes/strides on the same storage.
#include <tcore/ops/clone.h>
#include <tcore/ops/clone_native.h>
#include <tcore/ops/contiguous_native.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/expand_native.h>
#include <tcore/ops/transpose_native.h>
#include <tcore/ops/view_native.h>

#include "native/TensorUtils.h"

namespace tcore::native {
namespace {

// Replaces a -1 entry by the size that keeps numel.
std::vector<int64_t> infer_size(IntArrayRef shape, int64_t numel) {
  std::vector<int64_t> out = shape.vec();
  int64_t known = 1;
  int64_t infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      TCORE_CHECK_VALUE(infer < 0, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      TCORE_CHECK_VALUE(out[i] >= 0, "invalid shape dimension ", out[i]);
      known *= out[i];
    }
  }
  if (infer >= 0) {
    TCORE_CHECK_VALUE(known != 0 && numel % known == 0, "shape '", shape_str(shape), "' is invalid for input of size ",
                      numel);
    out[infer] = numel / known;
  }
  TCORE_CHECK_VALUE(numel_of(out) == numel, "shape '", shape_str(shape), "' is invalid for input of size ", numel);
  return out;
}

// Strides for viewing (sizes, strides) as `shape` without a copy, if possible
// (PyTorch's computeStride: each group of merged dims must be contiguous).
std::optional<std::vector<int64_t>> view_strides(IntArrayRef sizes, IntArrayRef strides, const std::vector<int64_t>& shape) {
  std::vector<int64_t> out(shape.size());
  if (sizes.empty()) {
    std::fill(out.begin(), out.end(), 1);
    return out;
  }
  const int64_t numel = numel_of(sizes);
  if (numel == 0) return contiguous_strides(shape);
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace

Tensor view(const Tensor& self, IntArrayRef size) {
  const std::vector<int64_t> shape = infer_size(size, self.numel());
  auto strides = view_strides(self.sizes(), self.strides(), shape);
  TCORE_CHECK_VALUE(strides.has_value(),
                    "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                    "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, *strides, self.storage_offset());
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t n = self.dim();
  if (n == 0) {
    wrap_dim(dim0, n);
    wrap_dim(dim1, n);
    return make_view(self, {}, {}, self.storage_offset());
  }
  const int64_t a = wrap_dim(dim0, n), b = wrap_dim(dim1, n);
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor transpose_(const Tensor& self, int64_t dim0, int64_t dim1) {
  Tensor t = transpose(self, dim0, dim1);
  self.impl()->set_sizes_and_strides(t.sizes().vec(), t.strides().vec(), t.storage_offset());
  return self;
}

Tensor expand(const Tensor& self, IntArrayRef size, bool implicit) {
  (void)implicit;
  const int64_t n = static_cast<int64_t>(size.size()), m = self.dim();
  TCORE_CHECK_VALUE(n >= m, "expand: the number of sizes provided (", n, ") must be greater or equal to the number of ",
                    "dimensions in the tensor (", m, ")");
  std::vector<int64_t> sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t j = i - (n - m);
    const int64_t have = j >= 0 ? self.sizes()[j] : 1;
    const int64_t want = size[i] == -1 ? have : size[i];
    TCORE_CHECK_VALUE(j >= 0 || size[i] != -1, "expand: -1 is not allowed in a leading, non-existing dimension");
    TCORE_CHECK_VALUE(have == want || have == 1, "The expanded size of the tensor (", want,
                      ") must match the existing size (", have, ") at non-singleton dimension ", i,
                      ".  Target sizes: ", shape_str(size), ".  Tensor sizes: ", shape_str(self.sizes()));
    sizes[i] = want;
    strides[i] = (j < 0 || (have == 1 && want != 1)) ? 0 : self.strides()[j];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  TCORE_CHECK_VALUE(!memory_format || *memory_format != MemoryFormat::ChannelsLast, "clone: channels_last is not supported");
  Tensor out = tcore::empty(self.sizes(), self.dtype(), Layout::Strided, self.device());
  return tcore::copy_(out, self);
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  TCORE_CHECK_VALUE(memory_format != MemoryFormat::ChannelsLast, "contiguous: channels_last is not supported");
  if (self.is_contiguous()) return self;
  return tcore::clone(self, MemoryFormat::Contiguous);
}

}  // namespace tcore::native
