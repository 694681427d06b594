// stack, split, split_with_sizes, chunk, tensor_split and hsplit/vsplit/dsplit in terms of cat,
// unsqueeze, narrow and slice: the pieces are views of the input; autograd records what they call.
#include <numeric>

#include <tcore/ops/cat.h>
#include <tcore/ops/chunk_native.h>
#include <tcore/ops/dsplit_native.h>
#include <tcore/ops/hsplit_native.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/slice.h>
#include <tcore/ops/split.h>
#include <tcore/ops/split_native.h>
#include <tcore/ops/split_with_sizes.h>
#include <tcore/ops/split_with_sizes_native.h>
#include <tcore/ops/stack_native.h>
#include <tcore/ops/tensor_split.h>
#include <tcore/ops/tensor_split_native.h>
#include <tcore/ops/vsplit_native.h>
#include <tcore/ops/unsqueeze.h>

#include "native/TensorUtils.h"

namespace tcore::native {
namespace {

std::vector<Tensor> unsqueezed(ArrayRef<Tensor> tensors, int64_t dim) {
  TCORE_CHECK_VALUE(!tensors.empty(), "stack expects a non-empty TensorList");
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    TCORE_CHECK_VALUE(tensors[i].sizes().vec() == tensors[0].sizes().vec(), "stack expects each tensor to be equal size, but got ",
                      shape_str(tensors[0].sizes()), " at entry 0 and ", shape_str(tensors[i].sizes()), " at entry ",
                      i);
    out.push_back(tcore::unsqueeze(tensors[i], d));
  }
  return out;
}

}  // namespace

Tensor stack(ArrayRef<Tensor> tensors, int64_t dim) {
  const std::vector<Tensor> parts = unsqueezed(tensors, dim);
  return tcore::cat(parts, wrap_dim(dim, tensors[0].dim() + 1));
}

Tensor stack_out(ArrayRef<Tensor> tensors, int64_t dim, const Tensor& out) {
  const std::vector<Tensor> parts = unsqueezed(tensors, dim);
  return tcore::cat_out(out, parts, wrap_dim(dim, tensors[0].dim() + 1));
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  TCORE_CHECK_INDEX(self.dim() > 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t size = self.sizes()[d];
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    TCORE_CHECK_VALUE(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got "
                      "split_sizes=", shape_str(split_sizes));
    total += s;
  }
  TCORE_CHECK_VALUE(total == size, "split_with_sizes expects split_sizes to sum exactly to ", size,
                    " (input tensor's size at dimension ", d, "), but got split_sizes=", shape_str(split_sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(tcore::narrow(self, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  TCORE_CHECK_INDEX(self.dim() > 0, "split expects at least a 1-dimensional tensor");
  TCORE_CHECK_VALUE(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t size = self.sizes()[d];
  TCORE_CHECK_VALUE(split_size > 0 || size == 0, "split_size can only be 0 if dimension size is 0, but got dimension "
                    "size of ", size);
  const int64_t pieces = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<int64_t> sizes(pieces, split_size);
  sizes.back() = size - split_size * (pieces - 1);
  return native::split_with_sizes(self, sizes, d);
}

// through the dispatcher, as torch's: the pieces' node is SplitWithSizesBackward0
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_size, int64_t dim) {
  return tcore::split_with_sizes(self, split_size, dim);
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  TCORE_CHECK_INDEX(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  TCORE_CHECK_VALUE(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t size = self.sizes()[d];
  const int64_t split_size = (size + chunks - 1) / chunks;
  // through the dispatcher: split's outputs are multi-output views with a backward of their own
  if (split_size == 0 && size == 0) return tcore::split(self, std::vector<int64_t>(chunks, 0), d);
  return tcore::split(self, split_size, d);
}

// tensor_split: `sections` pieces, the first size % sections of them one longer; or the pieces
// between `indices` (slice's rules: clamped to the dim, empty where an index is below the last)
std::vector<Tensor> tensor_split_sections(const Tensor& self, int64_t sections, int64_t dim) {
  TCORE_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ", self.dim(),
              " dims");
  const int64_t d = wrap_dim(dim, self.dim());
  TCORE_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
  const int64_t size = self.sizes()[d], base = size / sections, longer = size % sections;
  std::vector<Tensor> pieces;
  pieces.reserve(static_cast<size_t>(sections));
  for (int64_t i = 0, start = 0; i < sections; ++i) {
    const int64_t length = base + (i < longer ? 1 : 0);
    pieces.push_back(tcore::slice(self, d, start, start + length, 1));
    start += length;
  }
  return pieces;
}

std::vector<Tensor> tensor_split_indices(const Tensor& self, IntArrayRef indices, int64_t dim) {
  TCORE_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ", self.dim(),
              " dims");
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<Tensor> pieces;
  pieces.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t end : indices) {
    pieces.push_back(tcore::slice(self, d, start, end, 1));
    start = end;
  }
  pieces.push_back(tcore::slice(self, d, start, self.sizes()[d], 1));
  return pieces;
}

// a 0-d int64 tensor: sections; 1-d: indices (read on the CPU)
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim) {
  const Tensor& t = tensor_indices_or_sections;
  TCORE_CHECK(t.device().is_cpu(), "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ",
              t.device());
  TCORE_CHECK(t.dtype() == ScalarType::Long, "tensor_split expected tensor_indices_or_sections to have dtype of long, "
              "but got ", t.dtype());
  TCORE_CHECK(t.dim() == 0 || t.dim() == 1, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional "
              "or one-dimensional tensor, but got a tensor with ", t.dim(), " dims");
  if (t.dim() == 0) return tcore::tensor_split(self, item<int64_t>(t), dim);
  const Tensor values = contiguous_copy(t);
  const int64_t* v = values.data_ptr<int64_t>();
  return tcore::tensor_split(self, std::vector<int64_t>(v, v + values.numel()), dim);
}

namespace {
// hsplit/vsplit/dsplit: tensor_split along dim 1 (0 for a vector), 0 or 2, `need` dims at least;
// sections must divide the dim's size
void check_split_dims(const Tensor& self, const char* name, int64_t need) {
  TCORE_CHECK(self.dim() >= need, "torch.", name, " requires a tensor with at least ", need,
              " dimension, but got a tensor with ", self.dim(), " dimensions!");
}
std::vector<Tensor> into_sections(const Tensor& self, const char* name, int64_t need, int64_t dim, int64_t sections) {
  check_split_dims(self, name, need);
  TCORE_CHECK(sections != 0 && self.sizes()[dim] % sections == 0, "torch.", name, " attempted to split along dimension ",
              dim, ", but the size of the dimension ", self.sizes()[dim], " is not divisible by the split_size ",
              sections, "!");
  return tcore::tensor_split(self, sections, dim);
}
}  // namespace

std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  return into_sections(self, "hsplit", 1, self.dim() == 1 ? 0 : 1, sections);
}
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) {
  check_split_dims(self, "hsplit", 1);
  return tcore::tensor_split(self, indices, self.dim() == 1 ? 0 : 1);
}
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) { return into_sections(self, "vsplit", 2, 0, sections); }
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) {
  check_split_dims(self, "vsplit", 2);
  return tcore::tensor_split(self, indices, 0);
}
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) { return into_sections(self, "dsplit", 3, 2, sections); }
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) {
  check_split_dims(self, "dsplit", 3);
  return tcore::tensor_split(self, indices, 2);
}

}  // namespace tcore::native
