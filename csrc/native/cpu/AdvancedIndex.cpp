// Advanced indexing as PyTorch has it: index (self[indices]), index_put_ (self[indices] =
// values, or += with accumulate), nonzero, and masked_fill.
//
// One plan serves reading and writing. Bool masks become the integer indices of their
// true elements (one per dim they cover); the index tensors broadcast to one shape; the
// byte offset of every indexed element is computed once (bounds-checked, negative indices
// counted from the end). Then self is viewed with the result's shape, stride 0 along the
// index dims, so the ordinary loop walks the other dims and adds each element's offset.
// When the indexed dims are not adjacent the index dims go first, as in numpy and PyTorch.
// On a GPU the plan is made on the host (the indices are read there, as PyTorch's nonzero does)
// and the loops are native/cuda/DeviceLoops.h's.
#include <tcore/ops/index_native.h>
#include <tcore/ops/index_put_native.h>
#include <tcore/ops/masked_fill_native.h>
#include <tcore/ops/nonzero_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"
#include "native/cuda/DeviceLoops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

struct IndexPlan {
  std::vector<int64_t> shape;  // the shape of self[indices]
  Tensor src;                  // self seen with `shape`, stride 0 along the index dims
  Tensor offsets;              // int64 byte offsets seen with `shape`, stride 0 along the others
};

// Each dim of self with its index tensor (undefined: the dim is kept whole).
std::vector<Tensor> expand_indices(const Tensor& self, ArrayRef<std::optional<Tensor>> indices) {
  std::vector<Tensor> out;
  for (const auto& maybe : indices) {
    if (!maybe || !maybe->defined()) {
      out.emplace_back();
      continue;
    }
    const Tensor idx = on_device(*maybe, Device());  // the plan is made on the host
    const ScalarType t = idx.dtype();
    if (t == ScalarType::Bool || t == ScalarType::Byte) {
      TCORE_CHECK_INDEX(idx.dim() > 0, "index: a 0-dimensional boolean index is only valid in Python indexing "
                        "(x[True]); give the op a mask with dims");
      const int64_t first = static_cast<int64_t>(out.size());
      TCORE_CHECK_INDEX(first + idx.dim() <= self.dim(), "too many indices for tensor of dimension ", self.dim());
      for (int64_t j = 0; j < idx.dim(); ++j) {
        TCORE_CHECK_INDEX(idx.sizes()[j] == self.sizes()[first + j], "The shape of the mask ", shape_str(idx.sizes()),
                          " at index ", j, " does not match the shape of the indexed tensor ", shape_str(self.sizes()),
                          " at index ", first + j);
      }
      const Tensor nz = nonzero(t == ScalarType::Bool ? idx : cast(idx, ScalarType::Bool));
      for (int64_t j = 0; j < idx.dim(); ++j) {
        const int64_t n = nz.sizes()[0];
        out.push_back(make_view(nz, {n}, {nz.strides()[0]}, nz.storage_offset() + j * nz.strides()[1]));
      }
    } else if (t == ScalarType::Long || t == ScalarType::Int) {  // int8/int16 are refused, as torch's
      out.push_back(t == ScalarType::Long ? idx : cast(idx, ScalarType::Long));
    } else {
      throw IndexError("tensors used as indices must be long, int, byte or bool tensors");
    }
  }
  TCORE_CHECK_INDEX(static_cast<int64_t>(out.size()) <= self.dim(), "too many indices for tensor of dimension ",
                    self.dim());
  out.resize(static_cast<size_t>(self.dim()));
  return out;
}

std::vector<int64_t> broadcast_index_shape(const std::vector<Tensor>& idx) {
  std::vector<int64_t> shape;
  bool first = true;
  for (const Tensor& t : idx) {
    if (!t.defined()) continue;
    if (first) {
      shape = t.sizes().vec();
      first = false;
      continue;
    }
    const size_t n = std::max(shape.size(), t.sizes().size());
    std::vector<int64_t> out(n, 1);
    for (size_t i = 0; i < n; ++i) {
      const int64_t a = i + shape.size() >= n ? shape[i + shape.size() - n] : 1;
      const int64_t b = i + t.sizes().size() >= n ? t.sizes()[i + t.sizes().size() - n] : 1;
      if (a != b && a != 1 && b != 1) {
        std::string shapes;
        for (const Tensor& u : idx)
          if (u.defined()) shapes += (shapes.empty() ? "" : ", ") + shape_str(u.sizes());
        throw IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " + shapes);
      }
      out[i] = a == 1 ? b : a;
    }
    shape = std::move(out);
  }
  return shape;
}

// offsets[j] += wrapped(idx[j]) * stride, over the broadcast index shape.
void add_offsets(const Tensor& offsets, const Tensor& idx, int64_t dim, int64_t size, int64_t byte_stride) {
  const LoopGeometry g = make_geometry(offsets.sizes(), {&offsets, &idx});
  loop_nd<2>(g, {static_cast<char*>(offsets.data_ptr()), static_cast<char*>(idx.data_ptr())},
             [&](char** p, const int64_t* s, int64_t n) {
               for (int64_t i = 0; i < n; ++i) {
                 int64_t k = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
                 if (k < -size || k >= size)
                   throw IndexError(detail::str_cat("index ", k, " is out of bounds for dimension ", dim, " with size ",
                                                    size));
                 if (k < 0) k += size;
                 *reinterpret_cast<int64_t*>(p[0] + i * s[0]) += k * byte_stride;
               }
             });
}

IndexPlan make_plan(const Tensor& self, ArrayRef<std::optional<Tensor>> indices) {
  const std::vector<Tensor> idx = expand_indices(self, indices);
  std::vector<int64_t> dims;  // the indexed dims of self
  for (int64_t d = 0; d < self.dim(); ++d)
    if (idx[d].defined()) dims.push_back(d);
  const std::vector<int64_t> ishape = broadcast_index_shape(idx);
  const int64_t ni = static_cast<int64_t>(ishape.size());
  Tensor offsets = empty_cpu(ishape, ScalarType::Long);
  std::fill_n(offsets.data_ptr<int64_t>(), offsets.numel(), int64_t{0});
  for (int64_t d : dims) add_offsets(offsets, idx[d], d, self.sizes()[d], self.strides()[d] * self.element_size());

  const bool adjacent = dims.empty() || dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  const int64_t at = adjacent && !dims.empty() ? dims.front() : 0;  // where the index dims go
  IndexPlan plan;
  std::vector<int64_t> src_strides, off_strides;
  const std::vector<int64_t> icontig = contiguous_strides(ishape);
  auto put_index_dims = [&] {
    for (int64_t j = 0; j < ni; ++j) {
      plan.shape.push_back(ishape[j]);
      src_strides.push_back(0);
      off_strides.push_back(icontig[j]);
    }
  };
  if (!adjacent) put_index_dims();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (adjacent && d == at && !dims.empty()) put_index_dims();
    if (idx[d].defined()) continue;
    plan.shape.push_back(self.sizes()[d]);
    src_strides.push_back(self.strides()[d]);
    off_strides.push_back(0);
  }
  plan.src = make_view(self, plan.shape, src_strides, self.storage_offset());
  plan.offsets = make_view(on_device(offsets, self.device()), plan.shape, off_strides, 0);
  return plan;
}

template <typename T>
T accumulated(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(a) + static_cast<float>(b));
  } else {
    return static_cast<T>(a + b);
  }
}

}  // namespace

// ------------------------------------------------------------------ index
Tensor index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices) {
  const IndexPlan plan = make_plan(self, indices);
  Tensor out = empty_on(plan.shape, self.dtype(), self.device());
  if (out.numel() == 0) return out;
  if (!self.device().is_cpu()) {  // byte offsets, checked by the plan
    cuda::index_take(out, plan.src, plan.offsets, plan.shape, 0, -1, 1, "index");
    return out;
  }
  const LoopGeometry g = make_geometry(plan.shape, {&out, &plan.src, &plan.offsets});
  dispatch_all_types(self.dtype(), "index", [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_loop_nd<3>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(plan.src.data_ptr()),
                            static_cast<char*>(plan.offsets.data_ptr())},
                        [&](char** p, const int64_t* s, int64_t n) {
                          for (int64_t i = 0; i < n; ++i) {
                            const int64_t off = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
                            *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[1] + i * s[1] + off);
                          }
                        });
  });
  return out;
}

// ------------------------------------------------------------------ index_put_
Tensor index_put_(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values, bool accumulate) {
  TCORE_CHECK_TYPE(values.dtype() == self.dtype(), "Index put requires the source and destination dtypes match, got ",
                   to_string(self.dtype()), " for the destination and ", to_string(values.dtype()), " for the source.");
  TCORE_CHECK(values.device() == self.device(), "index_put_: values is on ", values.device(), " but self is on ",
              self.device());
  // (torch's index_put_ checks, after its masked_fill_ path: one bool mask and one value)
  const bool masked_fill = !accumulate && values.numel() == 1 && indices.size() == 1 && indices[0] &&
                           indices[0]->dtype() == ScalarType::Bool;
  if (!masked_fill) assert_no_partial_overlap(self, values);
  for (const auto& index : indices) {
    if (index) assert_no_overlap(self, *index);
  }
  const IndexPlan plan = make_plan(self, indices);
  Tensor vals = values;  // extra leading dims of size 1 are allowed, as in PyTorch
  while (vals.dim() > static_cast<int64_t>(plan.shape.size()) && vals.sizes()[0] == 1) {
    const std::vector<int64_t> sizes(vals.sizes().begin() + 1, vals.sizes().end());
    const std::vector<int64_t> strides(vals.strides().begin() + 1, vals.strides().end());
    vals = make_view(vals, sizes, strides, vals.storage_offset());
  }
  {
    const IntArrayRef v = vals.sizes();
    bool ok = v.size() <= plan.shape.size();
    for (size_t i = 0; ok && i < v.size(); ++i) {
      const int64_t target = plan.shape[plan.shape.size() - v.size() + i];
      ok = v[i] == target || v[i] == 1;
    }
    TCORE_CHECK_VALUE(ok, "shape mismatch: value tensor of shape ", shape_str(v),
                      " cannot be broadcast to indexing result of shape ", shape_str(plan.shape));
  }
  if (numel_of(plan.shape) == 0) return self;
  // values that share memory with self are read from a copy (the writes must not feed the reads)
  Tensor source = vals;
  if (vals.storage().is_alias_of(self.storage())) {
    source = empty_on(vals.sizes(), vals.dtype(), vals.device());
    copy_kernel(source, vals);
  }
  if (!self.device().is_cpu()) {  // atomic adds: repeated indices add up (in no fixed order)
    cuda::index_put(plan.src, source, plan.offsets, plan.shape, 0, -1, 1, Scalar(1), accumulate, "index_put_");
    self.bump_version();
    return self;
  }
  const LoopGeometry g = make_geometry(plan.shape, {&plan.src, &source, &plan.offsets});
  dispatch_all_types(self.dtype(), "index_put_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // one thread: with accumulate, repeated indices add up in order; without, the last write wins
    loop_nd<3>(g, {static_cast<char*>(plan.src.data_ptr()), static_cast<char*>(source.data_ptr()),
                   static_cast<char*>(plan.offsets.data_ptr())},
               [&](char** p, const int64_t* s, int64_t n) {
                 for (int64_t i = 0; i < n; ++i) {
                   const int64_t off = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
                   T& cell = *reinterpret_cast<T*>(p[0] + i * s[0] + off);
                   const T v = *reinterpret_cast<const T*>(p[1] + i * s[1]);
                   cell = accumulate ? accumulated(cell, v) : v;
                 }
               });
  });
  self.bump_version();
  return self;
}

Tensor index_put(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values, bool accumulate) {
  Tensor out = empty_on(self.sizes(), self.dtype(), self.device());
  copy_kernel(out, self);
  return index_put_(out, indices, values, accumulate);
}

// ------------------------------------------------------------------ nonzero
Tensor nonzero(const Tensor& self) {
  const Tensor src = contiguous_copy(self);
  const int64_t nd = self.dim(), numel = self.numel();
  std::vector<uint8_t> hit(static_cast<size_t>(numel));
  int64_t count = 0;
  dispatch_all_types(self.dtype(), "nonzero", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(src.data_ptr());
    for (int64_t i = 0; i < numel; ++i) {
      const bool nz = static_cast<double>(p[i]) != 0.0 || p[i] != p[i];  // NaN counts as non-zero
      hit[static_cast<size_t>(i)] = nz;
      count += nz;
    }
  });
  // laid out as torch's: each dim's coordinates contiguous (strides {1, count}), so that the columns
  // nonzero(as_tuple=True) and mask indexing take are contiguous
  Tensor out = empty_strided_on({count, nd}, {1, count}, ScalarType::Long, Device(DeviceType::CPU));
  int64_t* o = out.data_ptr<int64_t>();
  std::vector<int64_t> coord(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < numel; ++i) {
    if (hit[static_cast<size_t>(i)]) {
      for (int64_t d = 0; d < nd; ++d) o[d * count] = coord[d];
      ++o;
    }
    for (int64_t d = nd - 1; d >= 0; --d) {  // the next coordinate, row-major
      if (++coord[d] < self.sizes()[d]) break;
      coord[d] = 0;
    }
  }
  return out;
}

// ------------------------------------------------------------------ masked_fill
Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_masked_fill(self, mask);
  const LoopGeometry g = make_geometry(self.sizes(), {&self, &mask}, /*in_memory_order=*/true);
  dispatch_all_types(self.dtype(), "masked_fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.to<T>();
    parallel_loop_nd<2>(g, {static_cast<char*>(self.data_ptr()), static_cast<char*>(mask.data_ptr())},
                        [&](char** p, const int64_t* s, int64_t n) {
                          for (int64_t i = 0; i < n; ++i)
                            if (*reinterpret_cast<const bool*>(p[1] + i * s[1])) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
                        });
  });
  self.bump_version();
  return self;
}

Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return masked_fill_(self, mask, masked_fill_value(value));
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  Tensor out = empty_cpu(shape, self.dtype());
  copy_kernel(out, self);
  return masked_fill_(out, mask, value);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  Tensor out = empty_cpu(shape, self.dtype());
  copy_kernel(out, self);
  return masked_fill_(out, mask, value);
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
