// Views (view, transpose, permute, squeeze, select, slice, ...) and the copies built on
// copy_ (contiguous, clone); reshape/flatten/narrow/t compose them.
// Views are device-agnostic metadata changes: new sizes/strides on the same storage.
#include <algorithm>

#include <tcore/ops/_to_copy.h>
#include <tcore/ops/_unsafe_view.h>
#include <tcore/ops/_unsafe_view_native.h>
#include <tcore/ops/_to_copy_native.h>
#include <tcore/ops/add.h>
#include <tcore/ops/alias_native.h>
#include <tcore/ops/as_strided_native.h>
#include <tcore/ops/clone.h>
#include <tcore/ops/clone_native.h>
#include <tcore/ops/contiguous_native.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/diagonal.h>
#include <tcore/ops/diagonal_backward_native.h>
#include <tcore/ops/diagonal_native.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/empty_like.h>
#include <tcore/ops/expand_native.h>
#include <tcore/ops/flatten_native.h>
#include <tcore/ops/narrow_native.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/permute_native.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/reshape_native.h>
#include <tcore/ops/resize.h>
#include <tcore/ops/resize_native.h>
#include <tcore/ops/resize_as_native.h>
#include <tcore/ops/select.h>
#include <tcore/ops/select_backward_native.h>
#include <tcore/ops/select_native.h>
#include <tcore/ops/slice.h>
#include <tcore/ops/slice_backward_native.h>
#include <tcore/ops/slice_native.h>
#include <tcore/ops/squeeze_native.h>
#include <tcore/ops/swapaxes_native.h>
#include <tcore/ops/swapdims_native.h>
#include <tcore/ops/t_native.h>
#include <tcore/ops/numpy_T_native.h>
#include <tcore/ops/matrix_H_native.h>
#include <tcore/ops/mT_native.h>
#include <tcore/ops/mH_native.h>
#include <tcore/ops/adjoint_native.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/to_native.h>
#include <tcore/ops/transpose.h>
#include <tcore/ops/transpose_native.h>
#include <tcore/ops/unfold.h>
#include <tcore/ops/unfold_backward_native.h>
#include <tcore/ops/unfold_native.h>
#include <tcore/ops/unsqueeze_native.h>
#include <tcore/ops/view.h>
#include <tcore/ops/view_native.h>
#include <tcore/ops/zeros.h>

#include "native/TensorUtils.h"
#include "tcore/core/Dispatch.h"  // detail::has_fw_grad
#include "tcore/core/SizeMath.h"

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
      known = checked_mul(known, out[i], "view");
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

Tensor alias(const Tensor& self) { return make_view(self, self.sizes().vec(), self.strides().vec(), self.storage_offset()); }

Tensor view(const Tensor& self, IntArrayRef size) {
  const std::vector<int64_t> shape = infer_size(size, self.numel());
  auto strides = view_strides(self.sizes(), self.strides(), shape);
  TCORE_CHECK_VALUE(strides.has_value(),
                    "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                    "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, *strides, self.storage_offset());
}

// The same bytes seen as elements of `dtype` (torch's view.dtype): of another element size, the
// last dim (stride 1) holds ratio times more or fewer elements, the other strides and the offset
// scale with it, and what would split an element is refused with torch's messages.
Tensor view(const Tensor& self, ScalarType dtype) {
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  int64_t offset = self.storage_offset();
  const int64_t from = self.element_size(), to = element_size(dtype);
  if (from != to) {
    TCORE_CHECK(!self.device().is_lazy(), "view(dtype): a lazy tensor cannot be seen as another element size");
    const std::string what = detail::str_cat(" to view ", self.dtype(), " as ", dtype, " (different element sizes)");
    TCORE_CHECK(self.dim() > 0, "self.dim() cannot be 0", what);
    const int64_t last = self.dim() - 1;
    TCORE_CHECK(strides[last] == 1, "self.stride(-1) must be 1", what, ", but got ", strides[last]);
    if (from > to) {
      const int64_t ratio = from / to;
      for (int64_t d = 0; d < last; ++d) strides[d] *= ratio;
      sizes[last] *= ratio;
      offset *= ratio;
    } else {
      const int64_t ratio = to / from;
      TCORE_CHECK(sizes[last] % ratio == 0, "self.size(-1) must be divisible by ", ratio, what, ", but got ",
                  sizes[last]);
      TCORE_CHECK(offset % ratio == 0, "self.storage_offset() must be divisible by ", ratio, what, ", but got ",
                  offset);
      for (int64_t d = 0; d < last; ++d) {
        TCORE_CHECK(strides[d] % ratio == 0, "self.stride(", d, ") must be divisible by ", ratio, what, ", but got ",
                    strides[d]);
        strides[d] /= ratio;
      }
      sizes[last] /= ratio;
      offset /= ratio;
    }
  }
  return make_view(self, dtype, std::move(sizes), std::move(strides), offset);
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

namespace {
// the in-place views: self takes the geometry of the view of itself, and its version goes up as
// any in-place operation's (a saved self no longer matches: backward's error, as torch's)
Tensor restrided_as(const Tensor& self, const Tensor& view) {
  self.impl()->set_sizes_and_strides(view.sizes().vec(), view.strides().vec(), view.storage_offset());
  self.bump_version();
  return self;
}
}  // namespace

Tensor transpose_(const Tensor& self, int64_t dim0, int64_t dim1) {
  return restrided_as(self, native::transpose(self, dim0, dim1));
}
Tensor unsqueeze_(const Tensor& self, int64_t dim) { return restrided_as(self, native::unsqueeze(self, dim)); }
Tensor squeeze_(const Tensor& self) { return restrided_as(self, native::squeeze(self)); }
Tensor squeeze_(const Tensor& self, int64_t dim) { return restrided_as(self, native::squeeze(self, dim)); }
Tensor squeeze_(const Tensor& self, IntArrayRef dim) { return restrided_as(self, native::squeeze(self, dim)); }
Tensor as_strided_(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  return restrided_as(self, native::as_strided(self, size, stride, storage_offset));
}

// torch's resize_: self gets `size`, contiguous (or channels_last) from its offset; its storage
// grows, bytes kept, for its views too, when too small (never shrinks). Not for tensors that
// require grad, as torch's, in grad mode or not.
Tensor resize_(const Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  TCORE_CHECK(!self.requires_grad(), "cannot resize variables that require grad");
  TCORE_CHECK(!detail::has_fw_grad(self), "cannot resize variables that has a forward grad");
  if (!memory_format && self.sizes().size() == size.size() &&
      std::equal(size.begin(), size.end(), self.sizes().begin()))
    return self;  // as torch's: nothing restrided, no new version
  for (const int64_t d : size)
    TCORE_CHECK_VALUE(d >= 0, "Trying to create tensor with negative dimension ", d, ": ", shape_str(size));
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Contiguous);
  TCORE_CHECK_VALUE(format != MemoryFormat::Preserve, "Unsupported memory format preserve_format");
  TCORE_CHECK_VALUE(format != MemoryFormat::ChannelsLast || size.size() == 4,
                    "required rank 4 tensor to use channels_last format");
  const std::vector<int64_t> strides =
      format == MemoryFormat::ChannelsLast ? channels_last_strides(size) : contiguous_strides(size);
  // out='s rule (storage grown for every view, lazy tensors resized lazily); the same sizes in
  // another memory format: restrided only
  if (!resize_output(self, size, strides) && !self.device().is_lazy())
    self.impl()->set_sizes_and_strides(size.vec(), strides, self.storage_offset());
  self.bump_version();
  return self;
}

Tensor resize_as_(const Tensor& self, const Tensor& the_template, std::optional<MemoryFormat> memory_format) {
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Contiguous);
  return tcore::resize_(self, the_template.sizes(),
                        format == MemoryFormat::Preserve ? the_template.suggest_memory_format() : format);
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
    TCORE_CHECK_VALUE(size[i] >= -1, "expand: the expanded size of the tensor (", size[i], ") isn't allowed: sizes "
                      "must be >= 0 (or -1 to keep an existing dimension). Target sizes: ", shape_str(size));
    TCORE_CHECK_VALUE(have == want || have == 1, "The expanded size of the tensor (", want,
                      ") must match the existing size (", have, ") at non-singleton dimension ", i,
                      ".  Target sizes: ", shape_str(size), ".  Tensor sizes: ", shape_str(self.sizes()));
    sizes[i] = want;
    strides[i] = (j < 0 || (have == 1 && want != 1)) ? 0 : self.strides()[j];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

// In self's layout by default (preserve_format, as PyTorch: x.t().clone() is transposed too).
Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  Tensor out = tcore::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt, memory_format);
  return tcore::copy_(out, self);
}

// A copy with another dtype and/or on another device (copy_ moves the values), in self's layout
// unless memory_format says otherwise.
Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking,
                std::optional<MemoryFormat> memory_format) {
  (void)non_blocking;
  (void)pin_memory;
  Tensor out = tcore::empty_like(self, dtype, layout, device, std::nullopt, memory_format);
  return tcore::copy_(out, self);
}

namespace {
// PyTorch's to_will_alias: self itself when nothing changes (a memory_format is no change when self
// already suggests it).
bool to_keeps(const Tensor& self, ScalarType dtype, bool same_device, bool copy, std::optional<MemoryFormat> format) {
  return same_device && dtype == self.dtype() && !copy &&
         (!format || *format == MemoryFormat::Preserve || self.suggest_memory_format() == *format);
}
}  // namespace

Tensor to(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy, std::optional<MemoryFormat> memory_format) {
  if (to_keeps(self, dtype, true, copy, memory_format)) return self;
  return tcore::_to_copy(self, dtype, std::nullopt, std::nullopt, std::nullopt, non_blocking, memory_format);
}

// "cuda" means the current CUDA device.
Tensor to(const Tensor& self, Device device, std::optional<ScalarType> dtype, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  const ScalarType t = dtype.value_or(self.dtype());
  const bool same_device = device.type == self.device().type && (device.index < 0 || device.index == self.device().index);
  if (to_keeps(self, t, same_device, copy, memory_format)) return self;
  return tcore::_to_copy(self, t, std::nullopt, same_device ? self.device() : device, std::nullopt, non_blocking,
                         memory_format);
}

// other's dtype and device.
Tensor to(const Tensor& self, const Tensor& other, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  return to(self, other.device(), other.dtype(), non_blocking, copy, memory_format);
}

// Every part by keyword (x.to(memory_format=tcore.channels_last)).
Tensor to(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
          std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  (void)layout;
  (void)pin_memory;
  return to(self, device.value_or(self.device()), dtype, non_blocking, copy, memory_format);
}

// self itself when it is contiguous in that format, else a copy in it.
Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  if (self.is_contiguous(memory_format)) return self;
  TCORE_CHECK(memory_format != MemoryFormat::Preserve, "preserve memory format is unsupported by the contiguous operator");
  return tcore::clone(self, memory_format);
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  const int64_t n = self.dim();
  TCORE_CHECK_VALUE(static_cast<int64_t>(dims.size()) == n, "permute(sparse_coo): number of dimensions in the tensor input ",
                    "does not match the length of the desired ordering of dimensions i.e. input.dim() = ", n,
                    " is not equal to len(dims) = ", dims.size());
  std::vector<int64_t> sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim(dims[i], n);
    TCORE_CHECK_VALUE(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim() + 1);
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  const int64_t stride = d >= self.dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self) {
  std::vector<int64_t> sizes, strides;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (self.sizes()[i] != 1) {
      sizes.push_back(self.sizes()[i]);
      strides.push_back(self.strides()[i]);
    }
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  if (self.dim() == 0 || self.sizes()[d] != 1) return make_view(self, self.sizes().vec(), self.strides().vec(), self.storage_offset());
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(self, sizes, strides, self.storage_offset());
}

// the dims of size 1 among `dim` dropped (others kept, as torch does); a repeated dim is an error
Tensor squeeze(const Tensor& self, IntArrayRef dim) {
  std::vector<bool> drop(static_cast<size_t>(self.dim()), false);
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  for (const int64_t d : dim) {
    const int64_t w = wrap_dim(d, self.dim());
    TCORE_CHECK_VALUE(!seen[static_cast<size_t>(w)], "dim ", w, " appears multiple times in the list of dims");
    seen[static_cast<size_t>(w)] = true;
    if (self.dim() > 0 && self.sizes()[w] == 1) drop[static_cast<size_t>(w)] = true;
  }
  std::vector<int64_t> sizes, strides;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (!drop[static_cast<size_t>(i)]) {
      sizes.push_back(self.sizes()[i]);
      strides.push_back(self.strides()[i]);
    }
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  TCORE_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t size = self.sizes()[d];
  TCORE_CHECK_INDEX(index >= -size && index < size, "select(): index ", index, " out of range for tensor of size ",
                    shape_str(self.sizes()), " at dimension ", dim);
  const int64_t i = index < 0 ? index + size : index;
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  const int64_t offset = self.storage_offset() + i * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(self, sizes, strides, offset);
}

// Python's slice semantics: negative bounds count from the end, out-of-range bounds clamp.
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  TCORE_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  TCORE_CHECK_VALUE(step > 0, "slice step must be positive");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t size = self.sizes()[d];
  int64_t b = start.value_or(0), e = end.value_or(size);
  if (b < 0) b += size;
  if (e < 0) e += size;
  b = std::clamp<int64_t>(b, 0, size);
  e = std::clamp<int64_t>(e, b, size);
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  const int64_t offset = self.storage_offset() + b * strides[d];
  sizes[d] = e == b ? 0 : div_round_up(e - b, step);
  // stride * step as PyTorch, also where the dim keeps fewer than two elements (clone's layout
  // follows those strides too); there an overflow, which no element can reach, keeps the stride
  int64_t stepped;
  if (sizes[d] > 1) strides[d] = checked_mul(strides[d], step, "slice");
  else if (!__builtin_mul_overflow(strides[d], step, &stepped)) strides[d] = stepped;
  return make_view(self, sizes, strides, offset);
}

Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = self.dim();
  const int64_t a = wrap_dim(dim1, n), b = wrap_dim(dim2, n);
  TCORE_CHECK_VALUE(a != b, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t length, start = self.storage_offset();
  if (offset >= 0) {
    length = std::max<int64_t>(std::min(self.sizes()[a], self.sizes()[b] - offset), 0);
    if (length > 0) start += offset * self.strides()[b];
  } else {
    length = std::max<int64_t>(std::min(self.sizes()[a] + offset, self.sizes()[b]), 0);
    if (length > 0) start -= offset * self.strides()[a];
  }
  std::vector<int64_t> sizes, strides;
  for (int64_t i = 0; i < n; ++i) {
    if (i != a && i != b) {
      sizes.push_back(self.sizes()[i]);
      strides.push_back(self.strides()[i]);
    }
  }
  sizes.push_back(length);
  strides.push_back(self.strides()[a] + self.strides()[b]);
  return make_view(self, sizes, strides, start);
}

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  const int64_t needed = required_storage_elements(size, stride, offset, "as_strided");
  const int64_t capacity = static_cast<int64_t>(self.storage().nbytes() / self.element_size());
  TCORE_CHECK_VALUE(needed <= capacity, "setStorage: sizes ", shape_str(size), ", strides ", shape_str(stride),
                    ", storage offset ", offset, " require a storage of ", needed, " elements, but it has ",
                    capacity);
  return make_view(self, size.vec(), stride.vec(), offset);
}

Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t n = self.dim();
  const int64_t d = n == 0 ? 0 : wrap_dim(dimension, n);
  const int64_t length = n == 0 ? 1 : self.sizes()[d];
  TCORE_CHECK_VALUE(size >= 0, "size is ", size, " but must be >= 0");
  TCORE_CHECK_VALUE(size <= length, "maximum size for tensor at dimension ", d, " is ", length, " but size is ", size);
  TCORE_CHECK_VALUE(step > 0, "step is ", step, " but must be > 0");
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  const int64_t inner_stride = n == 0 ? 1 : strides[d];
  if (n > 0) {
    sizes[d] = (length - size) / step + 1;
    strides[d] = sizes[d] > 1 ? checked_mul(strides[d], step, "unfold") : strides[d];
  }
  sizes.push_back(size);
  strides.push_back(inner_stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

// ---------------------------------------------------------------- composites of views

Tensor t(const Tensor& self) {
  TCORE_CHECK_VALUE(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  return self.dim() < 2 ? tcore::transpose(self, 0, 0) : tcore::transpose(self, 0, 1);
}

// Tensor.T: the dims reversed (torch's deprecation warnings for other than 2 of them); .H, .mT,
// .mH, adjoint(): the last two swapped (tcore has no complex dtype: no conjugation), with torch's
// checks of the dims (of a 0-D tensor: itself, with torch's warning).
Tensor numpy_T(const Tensor& self) {
  const int64_t n = self.dim();
  if (n != 2 && n != 0)
    warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
         "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
         "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.");
  if (n == 0) warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.");
  std::vector<int64_t> dims(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) dims[static_cast<size_t>(i)] = n - 1 - i;
  return tcore::permute(self, dims);
}

Tensor matrix_H(const Tensor& self) {
  const int64_t n = self.dim();
  if (n == 0) {
    warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().");
    return tcore::permute(self, {});
  }
  TCORE_CHECK(n == 2, "tensor.H is only supported on matrices (2-D tensors). Got ", n, "-D tensor.",
              n > 2 ? " For batches of matrices, consider using tensor.mH" : "");
  return tcore::transpose(self, 0, 1);
}

namespace {
// a 0-D tensor: itself, with torch's deprecation warning
Tensor last_two_swapped(const Tensor& self, const char* what, const char* zero_d_warning) {
  if (self.dim() == 0) {
    warn(zero_d_warning);
    return tcore::permute(self, {});
  }
  TCORE_CHECK(self.dim() >= 2, what, " is only supported on matrices or batches of matrices. Got ", self.dim(),
              "-D tensor.");
  return tcore::transpose(self, -2, -1);
}
}  // namespace

Tensor mT(const Tensor& self) {
  return last_two_swapped(self, "tensor.mT",
                          "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.");
}
Tensor mH(const Tensor& self) {
  return last_two_swapped(self, "tensor.mH", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().");
}
Tensor adjoint(const Tensor& self) {
  return last_two_swapped(self, "tensor.adjoint()", "adjoint() is deprecated on 0-D tensors. Consider using x.conj().");
}

Tensor t_(const Tensor& self) {
  TCORE_CHECK_VALUE(self.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  return self.dim() < 2 ? tcore::transpose_(self, 0, 0) : tcore::transpose_(self, 0, 1);
}

Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) { return tcore::transpose(self, dim0, dim1); }
Tensor swapdims_(const Tensor& self, int64_t dim0, int64_t dim1) { return tcore::transpose_(self, dim0, dim1); }
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) { return tcore::transpose(self, axis0, axis1); }
Tensor swapaxes_(const Tensor& self, int64_t axis0, int64_t axis1) { return tcore::transpose_(self, axis0, axis1); }

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  TCORE_CHECK_INDEX(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  TCORE_CHECK_VALUE(length >= 0, "narrow(): length must be non-negative.");
  const int64_t size = self.sizes()[wrap_dim(dim, self.dim())];
  TCORE_CHECK_INDEX(start >= -size && start <= size, "start out of range (expected to be in range of [", -size, ", ",
                    size, "], but got ", start, ")");
  const int64_t b = start < 0 ? start + size : start;
  TCORE_CHECK_VALUE(b + length <= size, "start (", b, ") + length (", length, ") exceeds dimension size (", size, ").");
  return tcore::slice(self, dim, b, b + length, 1);
}

// A view when the strides allow one, else a contiguous copy viewed (PyTorch's reshape).
Tensor reshape(const Tensor& self, IntArrayRef shape) {
  const std::vector<int64_t> sizes = infer_size(shape, self.numel());
  if (view_strides(self.sizes(), self.strides(), sizes).has_value()) return tcore::view(self, sizes);
  return tcore::_unsafe_view(tcore::clone(self, MemoryFormat::Contiguous), sizes);
}

Tensor _unsafe_view(const Tensor& self, IntArrayRef size) { return native::view(self, size); }

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  const int64_t n = self.dim();
  if (n == 0) return tcore::reshape(self, {1});
  const int64_t a = wrap_dim(start_dim, n), b = wrap_dim(end_dim, n);
  TCORE_CHECK_VALUE(a <= b, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (a == b) return self;
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().begin() + a);
  int64_t merged = 1;
  for (int64_t i = a; i <= b; ++i) merged *= self.sizes()[i];
  sizes.push_back(merged);
  sizes.insert(sizes.end(), self.sizes().begin() + b + 1, self.sizes().end());
  return tcore::reshape(self, sizes);
}

// ---------------------------------------------------------------- backward of the views
// The gradient of a view: zeros of the input's shape with the view's part set to grad.
// Operators of their own (as in PyTorch), so that their derivative is the view again
// and double backward works.

namespace {
Tensor zeros_of(const Tensor& like, IntArrayRef sizes) {
  return tcore::zeros(sizes, like.dtype(), Layout::Strided, like.device(), std::nullopt);
}
}  // namespace

Tensor select_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, int64_t index) {
  Tensor grad_input = zeros_of(grad_output, input_sizes);
  tcore::copy_(tcore::select(grad_input, dim, index), grad_output);
  return grad_input;
}

Tensor slice_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, int64_t start, int64_t end,
                      int64_t step) {
  Tensor grad_input = zeros_of(grad_output, input_sizes);
  tcore::copy_(tcore::slice(grad_input, dim, start, end, step), grad_output);
  return grad_input;
}

Tensor diagonal_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor grad_input = zeros_of(grad_output, input_sizes);
  tcore::copy_(tcore::diagonal(grad_input, offset, dim1, dim2), grad_output);
  return grad_input;
}

// Windows may overlap (step < size): each window's gradient is added at its place.
Tensor unfold_backward(const Tensor& grad_in, IntArrayRef input_sizes, int64_t dim, int64_t size, int64_t step) {
  const int64_t n = static_cast<int64_t>(input_sizes.size());
  TCORE_CHECK_VALUE(step > 0, "unfold_backward: step is ", step, " but must be > 0");
  const int64_t d = n == 0 ? 0 : wrap_dim(dim, n);
  const int64_t length = n == 0 ? 1 : input_sizes[d];
  TCORE_CHECK_VALUE(size >= 0 && size <= length, "unfold_backward: size ", size, " does not fit a dimension of ", length);
  // grad_in must have the shape unfold gave: the input's dims (dim d counting windows) plus the window's elements
  std::vector<int64_t> expected = input_sizes.vec();
  if (n > 0) expected[d] = (length - size) / step + 1;
  expected.push_back(size);
  TCORE_CHECK_VALUE(grad_in.sizes().size() == expected.size() &&
                        std::equal(expected.begin(), expected.end(), grad_in.sizes().begin()),
                    "unfold_backward: grad_in has shape ", shape_str(grad_in.sizes()), " but unfold of an input of shape ",
                    shape_str(input_sizes), " gives ", shape_str(expected));
  Tensor grad_input = zeros_of(grad_in, input_sizes);
  if (n == 0) return tcore::add(grad_input, tcore::reshape(grad_in, {}), 1);
  // grad_in: the input's dims with dim d counting windows, plus a last dim of a window's elements
  const int64_t windows = grad_in.sizes()[d];
  for (int64_t w = 0; w < windows; ++w) {
    const Tensor piece = tcore::permute(tcore::select(grad_in, d, w), [&] {
      std::vector<int64_t> dims;  // select removed dim d: the window's elements are the last dim (n - 1)
      for (int64_t i = 0; i < n; ++i) dims.push_back(i < d ? i : (i == d ? n - 1 : i - 1));
      return dims;
    }());
    const Tensor target = tcore::slice(grad_input, d, w * step, w * step + size, 1);
    tcore::copy_(target, tcore::add(target, piece, 1));
  }
  return grad_input;
}

}  // namespace tcore::native
