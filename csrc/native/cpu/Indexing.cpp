// gather, scatter_add, index_select and index_add: the index-driven copies that
// nll_loss, embedding and their gradients are built from.
//
// The kernels are device-neutral: on a GPU their loops are native/cuda/DeviceLoops.h's.
//
// One trick serves all four: the indexed tensor is viewed with the shape of the loop
// and stride 0 along `dim`, so the ordinary elementwise loop walks every other dim; the
// index value times the real stride of `dim` is added per element (bounds-checked).
#include <algorithm>
#include <tcore/ops/gather_native.h>
#include <tcore/ops/index_add_native.h>
#include <tcore/ops/index_select_native.h>
#include <tcore/ops/scatter_add_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"
#include "native/cuda/DeviceLoops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

void check_index_dtype(const Tensor& index, const char* op) {
  TCORE_CHECK_TYPE(index.dtype() == ScalarType::Long, op, "(): Expected dtype int64 for index, but got ",
                   to_string(index.dtype()));
}

// `t` seen with `sizes`, stride 0 along `dim` (the index supplies that coordinate).
// t and sizes have the same number of dims, or both at most one (a 0-dim tensor with a
// 1-D index, or the other way round): the missing dim has stride 0.
Tensor restrided(const Tensor& t, IntArrayRef sizes, int64_t dim) {
  std::vector<int64_t> strides(sizes.size(), 0);
  const int64_t shared = std::min<int64_t>(t.dim(), static_cast<int64_t>(sizes.size()));
  for (int64_t d = 0; d < shared; ++d) strides[d] = d == dim ? 0 : t.strides()[d];
  return make_view(t, sizes.vec(), strides, t.storage_offset());
}

// A 1-D index seen with `sizes`: it varies along `dim` only.
Tensor index_along(const Tensor& index, IntArrayRef sizes, int64_t dim) {
  std::vector<int64_t> strides(sizes.size(), 0);
  strides[dim] = index.dim() == 0 ? 0 : index.strides()[0];
  return make_view(index, sizes.vec(), strides, index.storage_offset());
}

[[noreturn]] __attribute__((noinline, cold)) void index_out_of_bounds(int64_t idx, int64_t dim, int64_t size) {
  throw IndexError(detail::str_cat("index ", idx, " is out of bounds for dimension ", dim, " with size ", size));
}

// An index along `dim` in [0, size): gather, scatter_add, index_select and index_add refuse a
// negative one, as torch's (advanced indexing counts those from the end: AdvancedIndex.cpp).
// Inlined into the loops, the throw out of line: called, it took 40% of a gather.
inline int64_t checked_index(int64_t idx, int64_t dim, int64_t size) {
  const bool outside = static_cast<uint64_t>(idx) >= static_cast<uint64_t>(size);  // a negative one too
  if (__builtin_expect(outside, 0)) index_out_of_bounds(idx, dim, size);
  return idx;
}

// The loops below run where their first operand lives: every operand must be there.
void check_devices(const Tensor& a, const Tensor& b, const Tensor& c, const char* op) {
  for (const Tensor* t : {&b, &c}) {
    TCORE_CHECK(t->device() == a.device(), op, "(): Expected all tensors to be on the same device, but found at "
                "least two devices, ", a.device().str(), " and ", t->device().str(), "!");
  }
}

// target[i] = self[i, with coordinate `dim` taken from idx[i]] over `shape`: src is self
// restrided to the loop's shape, `stride` the real byte stride of dim, `size` its extent.
void take_loop(const Tensor& target, const Tensor& src, const Tensor& idx, IntArrayRef shape, int64_t dim,
               int64_t size, int64_t stride, const char* op) {
  check_devices(target, src, idx, op);
  if (!target.device().is_cpu()) return cuda::index_take(target, src, idx, shape, dim, size, stride, op);
  const LoopGeometry g = make_geometry(shape, {&target, &src, &idx});
  dispatch_dtype(target.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    loop_nd<3>(g, {static_cast<char*>(target.data_ptr()), static_cast<char*>(src.data_ptr()),
                   static_cast<char*>(idx.data_ptr())},
               [&](char** p, const int64_t* s, int64_t n) {
                 for (int64_t i = 0; i < n; ++i) {
                   const int64_t k = checked_index(*reinterpret_cast<const int64_t*>(p[2] + i * s[2]), dim, size);
                   *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[1] + i * s[1] + k * stride);
                 }
               });
  });
}

// dst[i, with coordinate `dim` taken from idx[i]] += alpha * from[i] over `shape` (dst restrided as in take_loop).
void put_add_loop(const Tensor& dst, const Tensor& from, const Tensor& idx, IntArrayRef shape, int64_t dim,
                  int64_t size, int64_t stride, const Scalar& alpha, const char* op) {
  check_devices(dst, from, idx, op);
  if (!dst.device().is_cpu()) return cuda::index_put(dst, from, idx, shape, dim, size, stride, alpha, true, op);
  const LoopGeometry g = make_geometry(shape, {&dst, &from, &idx});
  dispatch_numeric(dst.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T a = alpha.to<T>();
    loop_nd<3>(g, {static_cast<char*>(dst.data_ptr()), static_cast<char*>(from.data_ptr()),
                   static_cast<char*>(idx.data_ptr())},
               [&](char** p, const int64_t* s, int64_t n) {
                 for (int64_t i = 0; i < n; ++i) {
                   const int64_t k = checked_index(*reinterpret_cast<const int64_t*>(p[2] + i * s[2]), dim, size);
                   T& cell = *reinterpret_cast<T*>(p[0] + i * s[0] + k * stride);
                   cell = static_cast<T>(cell + a * *reinterpret_cast<const T*>(p[1] + i * s[1]));
                 }
               });
  });
}

// The shape checks gather and scatter share: same number of dims, and index no larger
// than `other` in every dim but `dim`, and no larger than `src` in any.
// A 0-dim tensor counts as one element along one dim here (as in PyTorch's checks).
int64_t size_or_one(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

void check_gather_shapes(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const char* op) {
  TCORE_CHECK_VALUE(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1), op,
                    "(): Index tensor must have the same number of dimensions as input tensor (index ",
                    shape_str(index.sizes()), ", input ", shape_str(self.sizes()), ")");
  if (src) {
    TCORE_CHECK_VALUE(index.dim() == src->dim() || (index.dim() <= 1 && src->dim() <= 1), op,
                      "(): Index tensor must have the same number of dimensions as src tensor (index ",
                      shape_str(index.sizes()), ", src ", shape_str(src->sizes()), ")");
  }
  for (int64_t d = 0; d < index.dim(); ++d) {
    TCORE_CHECK_VALUE(d == dim || index.sizes()[d] <= size_or_one(self, d), op, "(): Size does not match at dimension ",
                      d, " expected index ", shape_str(index.sizes()), " to be no larger than self ",
                      shape_str(self.sizes()), " apart from dimension ", dim);
    if (src) {
      TCORE_CHECK_VALUE(index.sizes()[d] <= size_or_one(*src, d), op, "(): Expected index ", shape_str(index.sizes()),
                        " to be no larger than src ", shape_str(src->sizes()), " in any dimension");
    }
  }
}

}  // namespace

// ------------------------------------------------------------------ gather
Tensor gather_out(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad, const Tensor& out) {
  (void)sparse_grad;
  check_index_dtype(index, "gather");
  const int64_t d = wrap_dim(dim, self.dim());
  check_gather_shapes(self, d, index, nullptr, "gather");
  TCORE_CHECK_TYPE(out.dtype() == self.dtype(), "gather(): Expected out tensor to have dtype ", self.dtype(),
                   ", but got ", out.dtype(), " instead");
  const Tensor target = out.storage().is_alias_of(self.storage()) ? empty_on(index.sizes(), self.dtype(), self.device()) : out;
  resize_output(target, index.sizes());
  if (index.numel() > 0) {
    const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
    const int64_t stride = self.dim() == 0 ? 0 : self.strides()[d] * self.element_size();
    take_loop(target, restrided(self, index.sizes(), d), index, index.sizes(), d, size, stride, "gather");
  }
  if (!target.is_same(out)) write_result(out, target, "gather");
  out.bump_version();
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  return gather_out(self, dim, index, sparse_grad, empty_on(index.sizes(), self.dtype(), self.device()));
}

// ------------------------------------------------------------------ scatter_add
Tensor scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_index_dtype(index, "scatter_add");
  const int64_t d = wrap_dim(dim, self.dim());
  check_gather_shapes(self, d, index, &src, "scatter_add");
  TCORE_CHECK_TYPE(src.dtype() == self.dtype(), "scatter_add(): Expected self.dtype to be equal to src.dtype (",
                   self.dtype(), " and ", src.dtype(), ")");
  assert_no_internal_overlap(self);
  if (index.numel() == 0) return self;
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  const int64_t stride = self.dim() == 0 ? 0 : self.strides()[d] * self.element_size();
  // src's first elements, seen with index's shape (a 0-dim src is read again for each index element)
  std::vector<int64_t> src_strides(static_cast<size_t>(index.dim()), 0);
  for (int64_t k = 0; k < std::min(index.dim(), src.dim()); ++k) src_strides[k] = src.strides()[k];
  const Tensor from = make_view(src, index.sizes().vec(), src_strides, src.storage_offset());
  put_add_loop(restrided(self, index.sizes(), d), from, index, index.sizes(), d, size, stride, Scalar(1),
               "scatter_add");
  self.bump_version();
  return self;
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = empty_on(self.sizes(), self.dtype(), self.device());
  copy_kernel(out, self);
  return scatter_add_(out, dim, index, src);
}

// ------------------------------------------------------------------ index_select
Tensor index_select_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  check_index_dtype(index, "index_select");
  TCORE_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector, got shape ",
                    shape_str(index.sizes()));
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<int64_t> shape = self.sizes().vec();
  if (self.dim() > 0) shape[d] = index.numel();
  TCORE_CHECK_TYPE(out.dtype() == self.dtype(), "index_select(): self and out should have the same dtype (",
                   self.dtype(), " and ", out.dtype(), ")");
  const Tensor target = out.storage().is_alias_of(self.storage()) ? empty_on(shape, self.dtype(), self.device()) : out;
  resize_output(target, shape);
  if (target.numel() > 0) {
    const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
    const int64_t stride = self.dim() == 0 ? 0 : self.strides()[d] * self.element_size();
    const Tensor idx = self.dim() == 0 ? make_view(index, {}, {}, index.storage_offset()) : index_along(index, shape, d);
    take_loop(target, restrided(self, shape, d), idx, shape, d, size, stride, "index_select");
  }
  if (!target.is_same(out)) write_result(out, target, "index_select");
  out.bump_version();
  return out;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  return index_select_out(self, dim, index, empty_on({0}, self.dtype(), self.device()));
}

// ------------------------------------------------------------------ index_add
Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_index_dtype(index, "index_add");
  TCORE_CHECK_INDEX(index.dim() <= 1, "index_add_(): Index is supposed to be a vector");
  TCORE_CHECK_INDEX(self.dim() > 0, "index_add_(): self must have at least one dimension");
  const int64_t d = wrap_dim(dim, self.dim());
  TCORE_CHECK_VALUE(source.dim() == self.dim(), "index_add_(): source ", shape_str(source.sizes()),
                    " and self ", shape_str(self.sizes()), " must have the same number of dimensions");
  TCORE_CHECK_VALUE(source.sizes()[d] == index.numel(), "index_add_(): Number of indices (", index.numel(),
                    ") should be equal to source.size(dim) (", source.sizes()[d], ")");
  for (int64_t k = 0; k < self.dim(); ++k) {
    TCORE_CHECK_VALUE(k == d || source.sizes()[k] == self.sizes()[k], "index_add_(): source ",
                      shape_str(source.sizes()), " and self ", shape_str(self.sizes()),
                      " must match in every dimension but ", d);
  }
  assert_no_internal_overlap(self);
  if (source.numel() == 0) return self;
  const Tensor src = cast(source, self.dtype());
  const int64_t size = self.sizes()[d];
  const int64_t stride = self.strides()[d] * self.element_size();
  put_add_loop(restrided(self, src.sizes(), d), src, index_along(index, src.sizes(), d), src.sizes(), d, size, stride,
               alpha, "index_add");
  self.bump_version();
  return self;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  Tensor out = empty_on(self.sizes(), self.dtype(), self.device());
  copy_kernel(out, self);
  return index_add_(out, dim, index, source, alpha);
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
