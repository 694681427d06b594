// index_copy and masked_scatter: copies into self at the positions an index or a mask names, composed
// of scatter_ and index_put_ (so their gradients, every backend and functionalization are those
// operators').
#include <algorithm>

#include <tcore/ops/clone.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/index_copy_native.h>
#include <tcore/ops/index_put.h>
#include <tcore/ops/masked_scatter_native.h>
#include <tcore/ops/max.h>
#include <tcore/ops/min.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/scatter.h>
#include <tcore/ops/sum.h>

#include "native/TensorUtils.h"

namespace tcore::native {

// self's slices along dim at `index` replaced by source's, in index order (a repeated index keeps
// the last): torch's checks and messages, then a scatter with index seen along dim over source's
// shape (so autograd is scatter's: source's gradient gathers, self's is zero at the copied slices).
Tensor index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  TCORE_CHECK_INDEX(index.dim() <= 1, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  TCORE_CHECK(index.dtype() == ScalarType::Long, "index_copy_(): Expected a long tensor for index, but got ",
              to_string(index.dtype()));
  TCORE_CHECK(self.dtype() == source.dtype(), "index_copy_(): self and source expected to have the same dtype, but "
              "got (self) ", to_string(self.dtype()), " and (source) ", to_string(source.dtype()));
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  TCORE_CHECK_INDEX(self.dim() == 0 || source.dim() == 0 || source.dim() == self.dim(),
                    "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
                    "Source dimensionality (", source.dim(), "), destination dimensionality (", self.dim(), ")");
  const int64_t along = source.dim() == 0 ? 1 : source.sizes()[d];
  TCORE_CHECK_INDEX(index.numel() == along, "index_copy_(): Number of indices (", index.numel(),
                    ") should be equal to source.size(dim) (", along, ")");
  for (int64_t k = 0; k < source.dim(); ++k) {
    TCORE_CHECK(k == d || source.sizes()[k] == self.sizes()[k], "index_copy_(): Source/destination tensor must have "
                "same slice shapes. Destination slice shape: ", self.sizes()[k], " at dimension ", k,
                " and source slice shape: ", source.sizes()[k], " at dimension ", k, ".");
  }
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  if (index.numel() > 0) {  // torch's IndexError, negative indices included (scatter's would be a RuntimeError)
    const int64_t lo = item<int64_t>(tcore::min(index)), hi = item<int64_t>(tcore::max(index));
    if (lo < 0) index_out_of_bounds(lo, d, size, "index_copy_");
    if (hi >= size) index_out_of_bounds(hi, d, size, "index_copy_");
  }
  std::vector<int64_t> shape(static_cast<size_t>(source.dim()), 1);
  if (source.dim() > 0) shape[d] = index.numel();
  const Tensor idx = tcore::expand(tcore::reshape(index, shape), source.sizes(), false);
  return tcore::scatter_(self, d, idx, source);
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return index_copy_(tcore::clone(self, std::nullopt), dim, index, source);
}

// self's elements where mask is true replaced by source's first elements in order (mask broadcast to
// self): a boolean-mask index_put_, whose gradient is torch's (source's: grad at the mask, then zeros).
Tensor masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source) {
  TCORE_CHECK(mask.dtype() == ScalarType::Bool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              to_string(mask.dtype()));
  TCORE_CHECK(self.dtype() == source.dtype(), "masked_scatter: expected self and source to have same dtypes but got ",
              to_string(self.dtype()), " and ", to_string(source.dtype()));
  const Tensor m = tcore::expand(mask, self.sizes(), false);
  const int64_t count = item<int64_t>(tcore::sum(m));
  TCORE_CHECK(count <= source.numel(), "Number of elements of source < number of ones in mask");
  const Tensor values = tcore::narrow(tcore::reshape(source, {-1}), 0, 0, count);
  if (self.dim() == 0) {  // (a 0-dim boolean index is no index_put_ mask: through a 1-element view)
    tcore::index_put_(tcore::reshape(self, {1}), {std::optional<Tensor>(tcore::reshape(m, {1}))}, values, false);
    return self;
  }
  return tcore::index_put_(self, {std::optional<Tensor>(m)}, values, false);
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  return masked_scatter_(tcore::clone(tcore::expand(self, shape, false), MemoryFormat::Contiguous), mask, source);
}

}  // namespace tcore::native
