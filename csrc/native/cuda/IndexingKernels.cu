// Indexing on CUDA devices: the loops of native/cuda/DeviceLoops.h, and the registrations of
// gather, scatter_add, index_select, index_add, index, index_put_, cat, flip, tril/triu and
// nonzero for the CUDA key. The argument checks and the views are the CPU kernels' (native/cpu/
// Indexing.cpp, AdvancedIndex.cpp, Cat.cpp, ShapeOps.cpp: device-neutral, they hand their loops
// to these functions when the tensors are on a GPU). An index out of bounds is the CPU's
// IndexError: the kernel records the first bad index in a device flag, read back after the launch.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <tcore/ops/arange.h>
#include <tcore/ops/cat_native.h>
#include <tcore/ops/flip_native.h>
#include <tcore/ops/gather_native.h>
#include <tcore/ops/index_add_native.h>
#include <tcore/ops/index_native.h>
#include <tcore/ops/index_put_native.h>
#include <tcore/ops/index_select.h>
#include <tcore/ops/index_select_native.h>
#include <tcore/ops/nonzero_native.h>
#include <tcore/ops/scatter_add_native.h>
#include <tcore/ops/scatter_native.h>
#include <tcore/ops/searchsorted_native.h>
#include <tcore/ops/bucketize_native.h>
#include <tcore/ops/bincount_native.h>
#include <tcore/ops/scatter_reduce_native.h>
#include <tcore/ops/tril_native.h>
#include <tcore/ops/triu_native.h>

#include "native/TensorUtils.h"
#include "native/cuda/DeviceLoops.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native::cuda {
namespace {

// The first index out of bounds (bad != 0), for the error message.
struct BadIndex {
  int bad;
  int64_t value;
};

// size < 0: k is a byte offset already checked; else an index along a dim of `size` elements.
__device__ bool element_offset(int64_t k, int64_t size, int64_t stride, BadIndex* flag, int64_t* offset) {
  if (size < 0) {
    *offset = k;
    return true;
  }
  if (k < 0 || k >= size) {  // negative ones refused, as torch's gather/index_select (see checked_index)
    if (atomicCAS(&flag->bad, 0, 1) == 0) flag->value = k;
    return false;
  }
  *offset = k * stride;
  return true;
}

template <typename T, typename Index>
__global__ void take_kernel(Pointers<3> ptr, OffsetCalculator<3> calc, int64_t n, int64_t size, int64_t stride,
                            BadIndex* flag) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    int64_t off[3];
    calc.template offsets<Index>(i, off);
    int64_t at;
    if (!element_offset(*reinterpret_cast<const int64_t*>(ptr.p[2] + off[2]), size, stride, flag, &at)) continue;
    *reinterpret_cast<T*>(ptr.p[0] + off[0]) = *reinterpret_cast<const T*>(ptr.p[1] + off[1] + at);
  }
}

template <typename T>
constexpr bool has_atomic_add = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
                                std::is_same_v<T, int64_t>;
// 8- and 16-bit types (bool, int8, uint8, int16, float16, bfloat16): a compare-and-swap loop on
// the aligned 32-bit word that holds the element
template <typename T>
constexpr bool has_narrow_atomic_add = !has_atomic_add<T> && sizeof(T) <= 2;

// a + b as the CPU accumulates: float16/bfloat16 in float32, bool as or, integers wrapping
template <typename T>
__device__ T accumulated(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return T(float(a) + float(b));
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + b);
  else return a + b;
}

template <typename T>
__device__ T scaled(T alpha, T v) {
  if constexpr (std::is_same_v<T, bool>) return alpha && v;
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return T(float(alpha) * float(v));
  else return static_cast<T>(alpha * v);
}

template <typename T>
__device__ void atomic_add(T* cell, T v) {
  if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(cell), static_cast<unsigned long long>(v));  // wraps as int64
  } else if constexpr (has_atomic_add<T>) {
    atomicAdd(cell, v);
  } else {
    static_assert(has_narrow_atomic_add<T>);
    const auto address = reinterpret_cast<uintptr_t>(cell);
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    const unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      const unsigned bits = (assumed & mask) >> shift;
      T current;
      memcpy(&current, &bits, sizeof(T));  // little-endian: the low bytes
      const T next = accumulated(current, v);
      unsigned next_bits = 0;
      memcpy(&next_bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~mask) | (next_bits << shift));
    } while (old != assumed);
  }
}

template <typename T, typename Index, bool Accumulate>
__global__ void put_kernel(Pointers<3> ptr, OffsetCalculator<3> calc, int64_t n, int64_t size, int64_t stride, T alpha,
                           BadIndex* flag) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    int64_t off[3];
    calc.template offsets<Index>(i, off);
    int64_t at;
    if (!element_offset(*reinterpret_cast<const int64_t*>(ptr.p[2] + off[2]), size, stride, flag, &at)) continue;
    T* cell = reinterpret_cast<T*>(ptr.p[0] + off[0] + at);
    const T v = *reinterpret_cast<const T*>(ptr.p[1] + off[1]);
    if constexpr (Accumulate) {
      if constexpr (has_atomic_add<T> || has_narrow_atomic_add<T>) atomic_add(cell, scaled(alpha, v));
    } else {
      *cell = v;
    }
  }
}

// A device flag for one launch, read back (synchronously) after it.
struct Flag {
  explicit Flag(const Tensor& like) : bytes(empty_on({int64_t{sizeof(BadIndex)}}, ScalarType::Byte, like.device())) {
    const OnDevice on(bytes);
    check(cudaMemsetAsync(bytes.data_ptr(), 0, sizeof(BadIndex), on.stream), "cudaMemsetAsync");
  }
  BadIndex* get() const { return static_cast<BadIndex*>(bytes.data_ptr()); }
  void raise_if_set(int64_t dim, int64_t size, const char* op) const {
    if (size < 0) return;
    const Tensor host = on_device(bytes, Device());
    const BadIndex b = *reinterpret_cast<const BadIndex*>(host.data_ptr());
    if (b.bad) index_out_of_bounds(b.value, dim, size, op);
  }
  Tensor bytes;
};

}  // namespace

void index_take(const Tensor& target, const Tensor& src, const Tensor& idx, IntArrayRef shape, int64_t dim,
                int64_t size, int64_t stride, const char* op) {
  const int64_t n = numel_of(shape);
  if (n == 0) return;
  const Tensor i = on_device(idx, target.device());
  const auto calc = offset_calculator<3>(shape, {&target, &src, &i});
  const Flag flag(target);
  const OnDevice on(target);
  dispatch_all_types(target.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    with_index_type(n, [&](auto index) {
      using I = typename decltype(index)::type;
      take_kernel<T, I><<<grid_for(n), kThreads, 0, on.stream>>>(pointers<3>({&target, &src, &i}), calc, n, size,
                                                                  stride, flag.get());
    });
  });
  check(cudaGetLastError(), "take_kernel launch");
  flag.raise_if_set(dim, size, op);
}

void index_put(const Tensor& dst, const Tensor& from, const Tensor& idx, IntArrayRef shape, int64_t dim, int64_t size,
               int64_t stride, const Scalar& alpha, bool accumulate, const char* op) {
  const int64_t n = numel_of(shape);
  if (n == 0) return;
  const Tensor i = on_device(idx, dst.device()), f = on_device(from, dst.device());
  const auto calc = offset_calculator<3>(shape, {&dst, &f, &i});
  const Flag flag(dst);
  const OnDevice on(dst);
  dispatch_all_types(dst.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (accumulate) {
      if constexpr (has_atomic_add<T> || has_narrow_atomic_add<T>) {
        with_index_type(n, [&](auto index) {
          using I = typename decltype(index)::type;
          put_kernel<T, I, true><<<grid_for(n), kThreads, 0, on.stream>>>(pointers<3>({&dst, &f, &i}), calc, n, size,
                                                                          stride, alpha.to<T>(), flag.get());
        });
      } else {
        throw NotImplementedError(detail::str_cat(op, ": accumulating into a ", to_string(dst.dtype()),
                                                  " tensor on a CUDA device is not implemented"));
      }
    } else {
      with_index_type(n, [&](auto index) {
        using I = typename decltype(index)::type;
        put_kernel<T, I, false><<<grid_for(n), kThreads, 0, on.stream>>>(pointers<3>({&dst, &f, &i}), calc, n, size,
                                                                         stride, T{}, flag.get());
      });
    }
  });
  check(cudaGetLastError(), "put_kernel launch");
  flag.raise_if_set(dim, size, op);
}

namespace {
template <typename T>
__global__ void triangle_kernel(const T* in, T* out, int64_t n, int64_t rows, int64_t cols, int64_t diagonal,
                                bool lower) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const int64_t c = i % cols, r = (i / cols) % rows;
    const bool keep = lower ? c - r <= diagonal : c - r >= diagonal;
    out[i] = keep ? in[i] : T{};
  }
}
}  // namespace

void triangle(const Tensor& out, const Tensor& self, int64_t diagonal, bool lower) {
  const int64_t n = self.numel();
  if (n == 0) return;
  const int64_t rows = self.sizes()[self.dim() - 2], cols = self.sizes()[self.dim() - 1];
  const OnDevice on(out);
  dispatch_all_types(self.dtype(), lower ? "tril" : "triu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    triangle_kernel<T><<<grid_for(n), kThreads, 0, on.stream>>>(self.template data_ptr<T>(), out.template data_ptr<T>(),
                                                                n, rows, cols, diagonal, lower);
  });
  check(cudaGetLastError(), "triangle_kernel launch");
}

}  // namespace tcore::native::cuda

// ------------------------------------------------------------------ the CUDA registrations
// The device-neutral kernels (the baseline capability's copy: they only check and lay out views
// here, the loops are above).
namespace tcore::native {

Tensor gather_cuda(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  return TCORE_CPU_NS::gather(self, dim, index, sparse_grad);
}
Tensor gather_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad, const Tensor& out) {
  return TCORE_CPU_NS::gather_out(self, dim, index, sparse_grad, out);
}
Tensor scatter_add_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return TCORE_CPU_NS::scatter_add(self, dim, index, src);
}
Tensor scatter_add_cuda_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return TCORE_CPU_NS::scatter_add_(self, dim, index, src);
}
Tensor scatter_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return TCORE_CPU_NS::scatter(self, dim, index, src);
}
Tensor scatter_cuda_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return TCORE_CPU_NS::scatter_(self, dim, index, src);
}
Tensor scatter_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return TCORE_CPU_NS::scatter(self, dim, index, value);
}
Tensor scatter_cuda_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return TCORE_CPU_NS::scatter_(self, dim, index, value);
}
Tensor scatter_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return TCORE_CPU_NS::scatter(self, dim, index, src, reduce);
}
Tensor scatter_cuda_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return TCORE_CPU_NS::scatter_(self, dim, index, src, reduce);
}
Tensor scatter_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return TCORE_CPU_NS::scatter(self, dim, index, value, reduce);
}
Tensor scatter_cuda_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return TCORE_CPU_NS::scatter_(self, dim, index, value, reduce);
}
Tensor scatter_reduce_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self) {
  return TCORE_CPU_NS::scatter_reduce(self, dim, index, src, reduce, include_self);
}
Tensor scatter_reduce_cuda_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                            std::string_view reduce, bool include_self) {
  return TCORE_CPU_NS::scatter_reduce_(self, dim, index, src, reduce, include_self);
}
// searchsorted, bucketize and bincount: computed on the host (a binary search per element, a count)
namespace {
std::optional<Tensor> on_host(const std::optional<Tensor>& t) {
  return t && t->defined() ? std::optional<Tensor>(on_device(*t, Device())) : std::nullopt;
}
}  // namespace
Tensor searchsorted_cuda(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                         std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  return on_device(TCORE_CPU_NS::searchsorted(on_device(sorted_sequence, Device()), on_device(self, Device()),
                                              out_int32, right, side, on_host(sorter)),
                   sorted_sequence.device());
}
Tensor searchsorted_cuda(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                         std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  return on_device(TCORE_CPU_NS::searchsorted(on_device(sorted_sequence, Device()), self, out_int32, right, side,
                                              on_host(sorter)),
                   sorted_sequence.device());
}
Tensor bucketize_cuda(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  return on_device(TCORE_CPU_NS::bucketize(on_device(self, Device()), on_device(boundaries, Device()), out_int32, right),
                   boundaries.device());
}
Tensor bucketize_cuda(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return on_device(TCORE_CPU_NS::bucketize(self, on_device(boundaries, Device()), out_int32, right), boundaries.device());
}
Tensor bincount_cuda(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  return on_device(TCORE_CPU_NS::bincount(on_device(self, Device()), on_host(weights), minlength), self.device());
}
Tensor index_select_cuda(const Tensor& self, int64_t dim, const Tensor& index) {
  return TCORE_CPU_NS::index_select(self, dim, index);
}
Tensor index_select_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  return TCORE_CPU_NS::index_select_out(self, dim, index, out);
}
Tensor index_add_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return TCORE_CPU_NS::index_add(self, dim, index, source, alpha);
}
Tensor index_add_cuda_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return TCORE_CPU_NS::index_add_(self, dim, index, source, alpha);
}
Tensor index_cuda(const Tensor& self, ArrayRef<std::optional<Tensor>> indices) { return TCORE_CPU_NS::index(self, indices); }
Tensor index_put_cuda_(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                       bool accumulate) {
  return TCORE_CPU_NS::index_put_(self, indices, values, accumulate);
}
Tensor index_put_cuda(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                      bool accumulate) {
  return TCORE_CPU_NS::index_put(self, indices, values, accumulate);
}
// PyTorch's CUDA nonzero synchronizes too: the result's size depends on the data.
Tensor nonzero_cuda(const Tensor& self) { return on_device(TCORE_CPU_NS::nonzero(on_device(self, Device())), self.device()); }
Tensor cat_cuda(ArrayRef<Tensor> tensors, int64_t dim) { return TCORE_CPU_NS::cat(tensors, dim); }
Tensor cat_out_cuda(ArrayRef<Tensor> tensors, int64_t dim, const Tensor& out) { return TCORE_CPU_NS::cat_out(tensors, dim, out); }

// each flipped dim read backwards through index_select
Tensor flip_cuda(const Tensor& self, IntArrayRef dims) {
  const std::vector<bool> flipped = flip_mask(self, dims);
  Tensor out = self;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!flipped[d] || self.sizes()[d] <= 1) continue;
    const Tensor reversed = tcore::arange(Scalar(self.sizes()[d] - 1), Scalar(-1), Scalar(-1), ScalarType::Long,
                                          std::nullopt, self.device());
    out = tcore::index_select(out, d, reversed);
  }
  if (out.is_same(self)) {  // nothing reversed: still a new tensor
    out = empty_on(self.sizes(), self.dtype(), self.device());
    write_result(out, self, "flip");
  }
  return out;
}

Tensor tril_cuda(const Tensor& self, int64_t diagonal) { return TCORE_CPU_NS::tril(self, diagonal); }
Tensor tril_cuda_(const Tensor& self, int64_t diagonal) { return TCORE_CPU_NS::tril_(self, diagonal); }
Tensor triu_cuda(const Tensor& self, int64_t diagonal) { return TCORE_CPU_NS::triu(self, diagonal); }
Tensor triu_cuda_(const Tensor& self, int64_t diagonal) { return TCORE_CPU_NS::triu_(self, diagonal); }

}  // namespace tcore::native
