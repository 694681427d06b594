// gather, scatter (with its reductions), scatter_add, index_select and index_add: the
// index-driven copies that nll_loss, embedding and their gradients are built from.
//
// The kernels are device-neutral: on a GPU their loops are native/cuda/DeviceLoops.h's.
//
// One trick serves all four: the indexed tensor is viewed with the shape of the loop
// and stride 0 along `dim`, so the ordinary elementwise loop walks every other dim; the
// index value times the real stride of `dim` is added per element (bounds-checked).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <tcore/ops/gather_native.h>
#include <tcore/ops/index_add_native.h>
#include <tcore/ops/index_select_native.h>
#include <tcore/ops/scatter_add_native.h>
#include <tcore/ops/scatter_native.h>
#include <tcore/ops/scatter_reduce_native.h>

#include "native/IntMath.h"
#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"
#include "native/cuda/DeviceLoops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// An index tensor of int64 as given, of int32 widened (torch's kernels take both).
Tensor long_index(const Tensor& index, const char* op) {
  TCORE_CHECK_TYPE(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int, op,
                   "(): Expected dtype int32/int64 for index, but got ", to_string(index.dtype()));
  return index.dtype() == ScalarType::Long ? index : cast(index, ScalarType::Long);
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

// An index along `dim` in [0, size): gather, scatter_add, index_select and index_add refuse a
// negative one, as torch's (advanced indexing counts those from the end: AdvancedIndex.cpp).
// Inlined into the loops, the throw out of line: called, it took 40% of a gather.
inline int64_t checked_index(int64_t idx, int64_t dim, int64_t size, const char* op) {
  const bool outside = static_cast<uint64_t>(idx) >= static_cast<uint64_t>(size);  // a negative one too
  if (__builtin_expect(outside, 0)) index_out_of_bounds(idx, dim, size, op);
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
  dispatch_all_types(target.dtype(), op, [&](auto tag) {  // (a copy: float16/bfloat16 too)
    using T = typename decltype(tag)::type;
    loop_nd<3>(g, {static_cast<char*>(target.data_ptr()), static_cast<char*>(src.data_ptr()),
                   static_cast<char*>(idx.data_ptr())},
               [&](char** p, const int64_t* s, int64_t n) {
                 for (int64_t i = 0; i < n; ++i) {
                   const int64_t k =
                       checked_index(*reinterpret_cast<const int64_t*>(p[2] + i * s[2]), dim, size, op);
                   *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[1] + i * s[1] + k * stride);
                 }
               });
  });
}

enum class Reduce { Assign, Sum, Prod, Mean, Max, Min };

// scatter's reduce ("add", "multiply") or scatter_reduce's ("sum", "prod", "mean", "amax", "amin")
Reduce scatter_reduce_of(std::string_view reduce) {
  if (reduce == "add") return Reduce::Sum;
  if (reduce == "multiply") return Reduce::Prod;
  TCORE_CHECK(false, "reduce argument must be either add or multiply.");
}
Reduce scatter_reduce_two_of(std::string_view reduce) {
  if (reduce == "sum") return Reduce::Sum;
  if (reduce == "prod") return Reduce::Prod;
  if (reduce == "mean") return Reduce::Mean;
  if (reduce == "amax") return Reduce::Max;
  if (reduce == "amin") return Reduce::Min;
  TCORE_CHECK(false, "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
}

// dst[.., idx[i] along dim, ..] combined with from[i] over `shape`, in index order: a repeated index
// combines each of its elements (Assign: the last one stays, as torch's CPU kernel; Sum adds alpha *
// from[i]); amax/amin take a NaN, as torch's. dst and from are restrided as in take_loop. Off the
// CPU only Assign and Sum.
void scatter_loop(const Tensor& dst, const Tensor& from, const Tensor& idx, IntArrayRef shape, int64_t dim,
                  int64_t size, int64_t stride, Reduce r, const char* op, const Scalar& alpha = Scalar(int64_t{1})) {
  check_devices(dst, from, idx, op);
  if (!dst.device().is_cpu()) {
    return cuda::index_put(dst, from, idx, shape, dim, size, stride, alpha, r != Reduce::Assign, op);
  }
  const LoopGeometry g = make_geometry(shape, {&dst, &from, &idx});
  dispatch_all_types(dst.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto each = [&](auto combine) {
      loop_nd<3>(g, {static_cast<char*>(dst.data_ptr()), static_cast<char*>(from.data_ptr()),
                     static_cast<char*>(idx.data_ptr())},
                 [&](char** p, const int64_t* s, int64_t n) {
                   for (int64_t i = 0; i < n; ++i) {
                     const int64_t k =
                         checked_index(*reinterpret_cast<const int64_t*>(p[2] + i * s[2]), dim, size, op);
                     combine(*reinterpret_cast<T*>(p[0] + i * s[0] + k * stride),
                             *reinterpret_cast<const T*>(p[1] + i * s[1]));
                   }
                 });
    };
    switch (r) {
      case Reduce::Assign: each([](T& c, T v) { c = v; }); break;
      case Reduce::Sum:
      case Reduce::Mean: {
        const T a = alpha.to<T>();
        each([a](T& c, T v) {
          if constexpr (std::is_same_v<T, bool>) c = c || (a && v);
          else if constexpr (is_int_v<T>) c = wrapping_add(c, wrapping_mul(a, v));
          else c = static_cast<T>(c + a * v);
        });
        break;
      }
      case Reduce::Prod:
        each([](T& c, T v) {
          if constexpr (is_int_v<T>) c = wrapping_mul(c, v);
          else c = static_cast<T>(c * v);
        });
        break;
      case Reduce::Max: each([](T& c, T v) { if (v != v || v > c) c = v; }); break;
      case Reduce::Min: each([](T& c, T v) { if (v != v || v < c) c = v; }); break;
    }
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
Tensor gather_out(const Tensor& self, int64_t dim, const Tensor& index_, bool sparse_grad, const Tensor& out) {
  (void)sparse_grad;
  const Tensor index = long_index(index_, "gather");
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

// ------------------------------------------------------------------ index_select
Tensor index_select_out(const Tensor& self, int64_t dim, const Tensor& index_, const Tensor& out) {
  const Tensor index = long_index(index_, "index_select");
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
Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index_, const Tensor& source, const Scalar& alpha) {
  const Tensor index = long_index(index_, "index_add");
  TCORE_CHECK_INDEX(index.dim() <= 1, "index_add_(): Index is supposed to be a vector");
  TCORE_CHECK(source.dtype() == self.dtype(), "index_add_(): self (", to_string(self.dtype()), ") and source (",
              to_string(source.dtype()), ") must have the same scalar type");
  if (self.dim() == 0) {  // torch's: a 0-dim self (and source) is one element along dim 0
    TCORE_CHECK(source.dim() == 0, "source tensor shape must match self tensor shape, excluding the specified "
                "dimension. Got self.shape = [] source.shape = ", shape_str(source.sizes()));
    TCORE_CHECK_VALUE(index.numel() == 1, "index_add_(): Number of indices (", index.numel(),
                      ") should be equal to source.size(dim) (1)");
    wrap_dim(dim, 1);
    const auto one = [](const Tensor& t) { return make_view(t, {t.numel()}, {1}, t.storage_offset()); };
    index_add_(one(self), 0, one(index_), one(source), alpha);
    return self;
  }
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
  assert_no_overlap(self, index);  // (torch's index_add_ checks)
  assert_no_overlap(self, source);
  if (source.numel() == 0) return self;
  const Tensor src = cast(source, self.dtype());
  const int64_t size = self.sizes()[d];
  const int64_t stride = self.strides()[d] * self.element_size();
  // a float16/bfloat16 self adds in its own type, as torch's CPU kernel (scatter_add widens)
  scatter_loop(restrided(self, src.sizes(), d), src, index_along(index, src.sizes(), d), src.sizes(), d, size, stride,
               Reduce::Sum, "index_add", alpha);
  self.bump_version();
  return self;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  Tensor out = empty_on(self.sizes(), self.dtype(), self.device());
  copy_kernel(out, self);
  return index_add_(out, dim, index, source, alpha);
}

// ------------------------------------------------------------------ scatter, scatter_reduce
namespace {
// The identity a reduction starts from where include_self=False drops self's element.
Scalar reduce_identity(Reduce r, ScalarType dtype) {
  switch (r) {
    case Reduce::Prod: return Scalar(int64_t{1});
    case Reduce::Max:
    case Reduce::Min: {
      const bool max = r == Reduce::Max;
      if (is_floating(dtype)) return Scalar(max ? -HUGE_VAL : HUGE_VAL);
      if (dtype == ScalarType::Bool) return Scalar(!max);
      return dispatch_dtype(dtype, "scatter_reduce", [&](auto tag) {
        using T = typename decltype(tag)::type;
        return Scalar(static_cast<int64_t>(max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max()));
      });
    }
    default: return Scalar(int64_t{0});
  }
}

// A 0-dim tensor of `value` seen with `shape` (every element the same).
Tensor broadcast_number(const Scalar& value, ScalarType dtype, Device device, IntArrayRef shape) {
  Tensor t = empty_on({}, dtype, Device(DeviceType::CPU));
  dispatch_all_types(dtype, "scatter", [&](auto tag) {
    using T = typename decltype(tag)::type;
    *t.template data_ptr<T>() = value.to<T>();
  });
  t = on_device(t, device);
  return make_view(t, shape.vec(), std::vector<int64_t>(shape.size(), 0), t.storage_offset());
}

// self /= counts elementwise where counts is not 0, on the CPU: an integer self floor-divides, as torch's mean.
void mean_divide(const Tensor& self, const Tensor& counts) {
  const LoopGeometry g = make_geometry(self.sizes(), {&self, &counts});
  dispatch_all_types(self.dtype(), "scatter_reduce", [&](auto tag) {
    using T = typename decltype(tag)::type;
    loop_nd<2>(g, {static_cast<char*>(self.data_ptr()), static_cast<char*>(counts.data_ptr())},
               [&](char** p, const int64_t* s, int64_t n) {
                 for (int64_t i = 0; i < n; ++i) {
                   T& c = *reinterpret_cast<T*>(p[0] + i * s[0]);
                   const T k = *reinterpret_cast<const T*>(p[1] + i * s[1]);
                   if constexpr (std::is_same_v<T, bool>) {
                     (void)k;
                   } else if (k == T(0)) {  // nothing averaged there (include_self=False): self stays
                     continue;
                   } else if constexpr (is_int_v<T>) {
                     const T q = static_cast<T>(c / k);
                     c = static_cast<T>(q - ((c % k != 0 && ((c < 0) != (k < 0))) ? 1 : 0));
                   } else {
                     c = static_cast<T>(c / k);
                   }
                 }
               });
  });
}

// self[.., index[i] along dim, ..] (op)= src[i] for every element i of index (torch's scatter
// checks: index int64 or int32, no larger than self apart from dim nor than src in any dim; src
// of self's dtype), in place. `src` undefined: every element is `value`.
Tensor scatter_into(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const Scalar& value,
                    Reduce r, bool include_self, const char* op) {
  const int64_t d = wrap_dim(dim, self.dim());
  if (src) {
    TCORE_CHECK(src->dtype() == self.dtype(), op, "(): Expected self.dtype to be equal to src.dtype");
  }
  if (index.numel() == 0) {  // torch checks nothing more then
    self.bump_version();
    return self;
  }
  const Tensor idx = long_index(index, op);
  TCORE_CHECK_AS(NotImplementedError, r != Reduce::Mean || self.dtype() != ScalarType::Bool,
                 "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
  check_gather_shapes(self, d, idx, src, op);
  assert_no_internal_overlap(self);
  assert_no_overlap(self, index);
  if (src) assert_no_overlap(self, *src);
  if (is_reduced_float(self.dtype()) && (r == Reduce::Sum || r == Reduce::Prod || r == Reduce::Mean)) {
    // accumulated in float32, rounded once, as torch's (a float16 sum of 3000 ones was 2048)
    const Tensor wide = cast(self, ScalarType::Float);
    const Tensor wide_src = src ? cast(*src, ScalarType::Float) : Tensor();
    scatter_into(wide, dim, idx, src ? &wide_src : nullptr, value, r, include_self, op);
    copy_kernel(self, wide);
    self.bump_version();
    return self;
  }
  const bool elsewhere = !self.device().is_cpu() && r != Reduce::Assign && r != Reduce::Sum;
  if (elsewhere) {  // prod, mean, amax, amin off the CPU: computed on the CPU, copied back
    const Tensor host = on_device(self, Device(DeviceType::CPU));
    const Tensor host_src = src ? on_device(*src, Device(DeviceType::CPU)) : Tensor();
    scatter_into(host, dim, on_device(idx, Device(DeviceType::CPU)), src ? &host_src : nullptr, value, r,
                 include_self, op);
    copy_kernel(self, host);
    self.bump_version();
    return self;
  }
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  const int64_t stride = self.dim() == 0 ? 0 : self.strides()[d] * self.element_size();
  const Tensor dst = restrided(self, idx.sizes(), d);
  Tensor from;
  if (src) {  // src's first elements, seen with index's shape (a 0-dim src is read again for each)
    std::vector<int64_t> src_strides(static_cast<size_t>(idx.dim()), 0);
    for (int64_t k = 0; k < std::min(idx.dim(), src->dim()); ++k) src_strides[k] = src->strides()[k];
    from = make_view(*src, idx.sizes().vec(), src_strides, src->storage_offset());
  } else {
    from = broadcast_number(value, self.dtype(), self.device(), idx.sizes());
  }
  Tensor counts;
  if (r == Reduce::Mean) {  // how many values each element of self averages
    counts = empty_on(self.sizes(), self.dtype(), self.device());
    copy_kernel(counts, broadcast_number(Scalar(int64_t{include_self ? 1 : 0}), self.dtype(), self.device(),
                                         self.sizes()));
    const Tensor ones = broadcast_number(Scalar(int64_t{1}), self.dtype(), self.device(), idx.sizes());
    scatter_loop(restrided(counts, idx.sizes(), d), ones, idx, idx.sizes(), d, size,
                 self.dim() == 0 ? 0 : counts.strides()[d] * counts.element_size(), Reduce::Sum, op);
  }
  if (!include_self) {
    scatter_loop(dst, broadcast_number(reduce_identity(r, self.dtype()), self.dtype(), self.device(), idx.sizes()),
                 idx, idx.sizes(), d, size, stride, Reduce::Assign, op);
  }
  scatter_loop(dst, from, idx, idx.sizes(), d, size, stride, r, op);
  if (r == Reduce::Mean) mean_divide(self, counts);
  self.bump_version();
  return self;
}

Tensor scattered_copy(const Tensor& self) {
  Tensor out = empty_on(self.sizes(), self.dtype(), self.device());
  copy_kernel(out, self);
  return out;
}
}  // namespace

Tensor scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_into(self, dim, index, &src, Scalar(), Reduce::Sum, true, "scatter_add");
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_add_(scattered_copy(self), dim, index, src);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_into(self, dim, index, &src, Scalar(), Reduce::Assign, true, "scatter");
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_(scattered_copy(self), dim, index, src);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_into(self, dim, index, nullptr, value, Reduce::Assign, true, "scatter");
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_(scattered_copy(self), dim, index, value);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return scatter_into(self, dim, index, &src, Scalar(), scatter_reduce_of(reduce), true, "scatter");
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return scatter_(scattered_copy(self), dim, index, src, reduce);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return scatter_into(self, dim, index, nullptr, value, scatter_reduce_of(reduce), true, "scatter");
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return scatter_(scattered_copy(self), dim, index, value, reduce);
}
Tensor scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       std::string_view reduce, bool include_self) {
  return scatter_into(self, dim, index, &src, Scalar(), scatter_reduce_two_of(reduce), include_self, "scatter_reduce");
}
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  return scatter_reduce_(scattered_copy(self), dim, index, src, reduce, include_self);
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
