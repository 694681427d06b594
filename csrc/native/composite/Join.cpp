// stack, split, split_with_sizes and chunk in terms of cat, unsqueeze and narrow: the
// pieces of split/chunk are views of the input; autograd records what they call.
#include <numeric>

#include <tcore/ops/cat.h>
#include <tcore/ops/chunk_native.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/split.h>
#include <tcore/ops/split_native.h>
#include <tcore/ops/split_with_sizes.h>
#include <tcore/ops/split_with_sizes_native.h>
#include <tcore/ops/stack_native.h>
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

}  // namespace tcore::native
