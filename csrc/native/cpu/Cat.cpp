// cat: tensors joined along an existing dim, with PyTorch's rules: every tensor has the
// same number of dims and the same sizes except in `dim`, legacy 1-D empty tensors are
// skipped, dtypes promote. Each input is copied (with conversion) into its slice of the result.
#include <tcore/ops/cat_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

void fill(const Tensor& result, ArrayRef<Tensor> tensors, int64_t dim) {
  if (result.numel() == 0) return;
  std::vector<int64_t> sizes = result.sizes().vec();
  const std::vector<int64_t> strides = result.strides().vec();
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (cat_skipped(t)) continue;
    const int64_t n = t.sizes()[dim];
    sizes[dim] = n;
    if (n > 0) copy_kernel(make_view(result, sizes, strides, result.storage_offset() + offset * strides[dim]), t);
    offset += n;
  }
}

}  // namespace

Tensor cat(ArrayRef<Tensor> tensors, int64_t dim) {
  const CatShape l = cat_shape(tensors, dim);
  Tensor result = empty_on(l.shape, l.dtype, l.device);
  fill(result, tensors, l.dim);
  return result;
}

Tensor cat_out(ArrayRef<Tensor> tensors, int64_t dim, const Tensor& out) {
  const CatShape l = cat_shape(tensors, dim);
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
