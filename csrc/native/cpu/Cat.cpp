// cat: tensors joined along an existing dim, with PyTorch's rules: every tensor has the
// same number of dims and the same sizes except in `dim`, legacy 1-D empty tensors are
// skipped, dtypes promote. Each input is copied (with conversion) into its slice of the result.
#include <tcore/ops/cat_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

bool skipped(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

struct Layout {
  std::vector<int64_t> shape;  // of the result
  int64_t dim = 0;
  ScalarType dtype = ScalarType::Float;
};

Layout layout_of(ArrayRef<Tensor> tensors, int64_t dim) {
  TCORE_CHECK_VALUE(!tensors.empty(), "cat(): expected a non-empty list of Tensors");
  Layout l;
  l.dtype = tensors[0].dtype();
  for (const Tensor& t : tensors) l.dtype = promote_types(l.dtype, t.dtype());
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TCORE_CHECK_VALUE(t.dim() > 0, "cat(): zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    if (skipped(t)) continue;
    if (!ref) {
      ref = &t;
      l.dim = wrap_dim(dim, t.dim());
      l.shape = t.sizes().vec();
      l.shape[l.dim] = 0;
    }
    TCORE_CHECK_VALUE(t.dim() == ref->dim(), "cat(): Tensors must have same number of dimensions: got ", ref->dim(),
                      " and ", t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) {
      TCORE_CHECK_VALUE(d == l.dim || t.sizes()[d] == ref->sizes()[d], "cat(): Sizes of tensors must match except in "
                        "dimension ", l.dim, ". Expected size ", ref->sizes()[d], " but got size ", t.sizes()[d],
                        " for tensor number ", i, " in the list (shapes ", shape_str(ref->sizes()), " and ",
                        shape_str(t.sizes()), ").");
    }
    l.shape[l.dim] += t.sizes()[l.dim];
  }
  if (!ref) l.shape = {0};  // nothing but legacy empty tensors
  return l;
}

void fill(const Tensor& result, ArrayRef<Tensor> tensors, int64_t dim) {
  if (result.numel() == 0) return;
  std::vector<int64_t> sizes = result.sizes().vec();
  const std::vector<int64_t> strides = result.strides().vec();
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (skipped(t)) continue;
    const int64_t n = t.sizes()[dim];
    sizes[dim] = n;
    if (n > 0) copy_kernel(make_view(result, sizes, strides, result.storage_offset() + offset * strides[dim]), t);
    offset += n;
  }
}

}  // namespace

Tensor cat(ArrayRef<Tensor> tensors, int64_t dim) {
  const Layout l = layout_of(tensors, dim);
  Tensor result = empty_cpu(l.shape, l.dtype);
  fill(result, tensors, l.dim);
  return result;
}

Tensor cat_out(ArrayRef<Tensor> tensors, int64_t dim, const Tensor& out) {
  const Layout l = layout_of(tensors, dim);
  TCORE_CHECK_TYPE(can_cast(l.dtype, out.dtype()), "cat(): result type ", l.dtype,
                   " can't be cast to the desired output type ", out.dtype());
  bool overlaps = false;
  for (const Tensor& t : tensors) overlaps = overlaps || t.storage().is_alias_of(out.storage());
  if (overlaps) {  // an input is (part of) the output: join into a fresh tensor first
    write_result(out, cat(tensors, dim), "cat");
  } else {
    resize_output(out, l.shape);
    fill(out, tensors, l.dim);
  }
  out.bump_version();
  return out;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
