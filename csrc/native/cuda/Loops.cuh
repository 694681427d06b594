#pragma once
// The CUDA elementwise launcher: broadcasting and non-contiguous operands through the
// same offset calculation as the CPU loop (make_geometry's coalesced shape and byte
// strides, up to kMaxDims dims), one thread per output element, grid-stride loop.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"
#include "tcore/cuda/CUDA.h"

namespace tcore::native::cuda {

constexpr int kMaxDims = 8;
constexpr int kThreads = 256;

template <int N>
struct OffsetCalculator {
  int dims;
  int64_t sizes[kMaxDims];
  int64_t strides[N][kMaxDims];  // bytes, 0 for broadcast dims

  // Index: the type of the division by each size, uint32_t when the element count fits (a
  // 64-bit division costs several times a 32-bit one on a GPU). One dim divides nothing.
  template <typename Index>
  __host__ __device__ void offsets(int64_t linear, int64_t (&out)[N]) const {
    if (dims == 1) {
      for (int k = 0; k < N; ++k) out[k] = linear * strides[k][0];
      return;
    }
    for (int k = 0; k < N; ++k) out[k] = 0;
    Index rest = static_cast<Index>(linear);
    for (int d = dims - 1; d >= 0; --d) {
      const Index size = static_cast<Index>(sizes[d]);
      const Index i = rest % size;
      rest /= size;
      for (int k = 0; k < N; ++k) out[k] += static_cast<int64_t>(i) * strides[k][d];
    }
  }
};

template <int N>
struct Pointers {
  char* p[N];
};

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    throw Error(detail::str_cat(what, ": ", cudaGetErrorString(err)));
  }
}

// Where work on `t` runs: its device made current (for the guard's lifetime) and that
// device's current stream. Every launch and asynchronous copy goes through one.
struct OnDevice {
  explicit OnDevice(const Tensor& t)
      : guard(t.device().index), stream(static_cast<cudaStream_t>(tcore::cuda::current_stream(t.device().index))) {}
  tcore::cuda::DeviceGuard guard;
  cudaStream_t stream;
};

inline unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 ? blocks : 65535);
}

template <int N>
OffsetCalculator<N> offset_calculator(IntArrayRef shape, const std::vector<const Tensor*>& operands) {
  const LoopGeometry g = make_geometry(shape, operands);
  TCORE_CHECK(g.shape.size() <= static_cast<size_t>(kMaxDims), "CUDA kernels take at most ", kMaxDims,
              " dims after merging contiguous ones, got ", g.shape.size());
  OffsetCalculator<N> c{};
  c.dims = static_cast<int>(g.shape.size());
  for (int d = 0; d < c.dims; ++d) {
    c.sizes[d] = g.shape[d];
    for (int k = 0; k < N; ++k) c.strides[k][d] = g.strides[k][d];
  }
  return c;
}

template <int N>
Pointers<N> pointers(const std::vector<const Tensor*>& operands) {
  Pointers<N> p{};
  for (int k = 0; k < N; ++k) p.p[k] = static_cast<char*>(operands[k]->data_ptr());
  return p;
}

template <typename Out, typename In, typename Index, typename F>
__global__ void unary_kernel(Pointers<2> ptr, OffsetCalculator<2> calc, int64_t n, F f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    int64_t off[2];
    calc.template offsets<Index>(i, off);
    *reinterpret_cast<Out*>(ptr.p[0] + off[0]) = f(*reinterpret_cast<const In*>(ptr.p[1] + off[1]));
  }
}

template <typename Out, typename In, typename Index, typename F>
__global__ void binary_kernel(Pointers<3> ptr, OffsetCalculator<3> calc, int64_t n, F f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    int64_t off[3];
    calc.template offsets<Index>(i, off);
    *reinterpret_cast<Out*>(ptr.p[0] + off[0]) =
        f(*reinterpret_cast<const In*>(ptr.p[1] + off[1]), *reinterpret_cast<const In*>(ptr.p[2] + off[2]));
  }
}

template <typename Out, typename A, typename B, typename C, typename Index, typename F>
__global__ void ternary_kernel(Pointers<4> ptr, OffsetCalculator<4> calc, int64_t n, F f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    int64_t off[4];
    calc.template offsets<Index>(i, off);
    *reinterpret_cast<Out*>(ptr.p[0] + off[0]) =
        f(*reinterpret_cast<const A*>(ptr.p[1] + off[1]), *reinterpret_cast<const B*>(ptr.p[2] + off[2]),
          *reinterpret_cast<const C*>(ptr.p[3] + off[3]));
  }
}

template <typename T, typename Index>
__global__ void fill_kernel(Pointers<1> ptr, OffsetCalculator<1> calc, int64_t n, T value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    int64_t off[1];
    calc.template offsets<Index>(i, off);
    *reinterpret_cast<T*>(ptr.p[0] + off[0]) = value;
  }
}

// Calls launch(type_tag<Index>{}) with the index type of n elements: 32-bit arithmetic when every
// linear index fits, 64-bit otherwise.
template <typename Launch>
void with_index_type(int64_t n, Launch&& launch) {
  if (n <= int64_t{0xffffffff}) launch(type_tag<uint32_t>{});
  else launch(type_tag<int64_t>{});
}

// out = f(in): in broadcast to out's shape.
template <typename Out, typename In, typename F>
void launch_unary(const Tensor& out, const Tensor& in, F f) {
  assert_no_internal_overlap(out);
  const int64_t n = out.numel();
  if (n == 0) return;
  const auto calc = offset_calculator<2>(out.sizes(), {&out, &in});
  const OnDevice on(out);
  with_index_type(n, [&](auto index) {
    using I = typename decltype(index)::type;
    unary_kernel<Out, In, I><<<grid_for(n), kThreads, 0, on.stream>>>(pointers<2>({&out, &in}), calc, n, f);
  });
  check(cudaGetLastError(), "unary_kernel launch");
}

// out = f(a, b): a and b broadcast to out's shape, both of type In.
template <typename Out, typename In, typename F>
void launch_binary(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  assert_no_internal_overlap(out);
  const int64_t n = out.numel();
  if (n == 0) return;
  const auto calc = offset_calculator<3>(out.sizes(), {&out, &a, &b});
  const OnDevice on(out);
  with_index_type(n, [&](auto index) {
    using I = typename decltype(index)::type;
    binary_kernel<Out, In, I><<<grid_for(n), kThreads, 0, on.stream>>>(pointers<3>({&out, &a, &b}), calc, n, f);
  });
  check(cudaGetLastError(), "binary_kernel launch");
}

// out = f(a, b, c): a, b and c (of types A, B, C) broadcast to out's shape.
template <typename Out, typename A, typename B, typename C, typename F>
void launch_ternary(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, F f) {
  assert_no_internal_overlap(out);
  const int64_t n = out.numel();
  if (n == 0) return;
  const auto calc = offset_calculator<4>(out.sizes(), {&out, &a, &b, &c});
  const OnDevice on(out);
  with_index_type(n, [&](auto index) {
    using I = typename decltype(index)::type;
    ternary_kernel<Out, A, B, C, I>
        <<<grid_for(n), kThreads, 0, on.stream>>>(pointers<4>({&out, &a, &b, &c}), calc, n, f);
  });
  check(cudaGetLastError(), "ternary_kernel launch");
}

template <typename T>
void launch_fill(const Tensor& out, T value) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const auto calc = offset_calculator<1>(out.sizes(), {&out});
  const OnDevice on(out);
  with_index_type(n, [&](auto index) {
    using I = typename decltype(index)::type;
    fill_kernel<T, I><<<grid_for(n), kThreads, 0, on.stream>>>(pointers<1>({&out}), calc, n, value);
  });
  check(cudaGetLastError(), "fill_kernel launch");
}

// The type a kernel computing in Compute stores into a tensor of dtype `out`: Compute itself, or
// a 16-bit float its float32 results are rounded into (float16 and bfloat16 compute in float32,
// as on the CPU). Calls launch(type_tag<Store>{}).
template <typename Compute, typename Launch>
void with_store_type(ScalarType out, Launch&& launch) {
  if constexpr (std::is_same_v<Compute, float>) {
    if (out == ScalarType::Half) return launch(type_tag<Half>{});
    if (out == ScalarType::BFloat16) return launch(type_tag<BFloat16>{});
  }
  launch(type_tag<Compute>{});
}

inline void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  const bool a_scalar = a.device().is_cpu() && a.dim() == 0, b_scalar = b.device().is_cpu() && b.dim() == 0;
  TCORE_CHECK(a.device() == b.device() || a_scalar || b_scalar, op,
                    ": Expected all tensors to be on the same device, but found at least two devices, ",
                    a.device().str(), " and ", b.device().str(), "!");
}

// The device of a binary operation: a Python number (a CPU 0-dim tensor) joins the other's.
inline Device device_of(const Tensor& a, const Tensor& b) { return a.device().is_cpu() ? b.device() : a.device(); }

// A binary operation writing into `out`: its operands on the device in the compute dtype,
// and the tensor the kernel writes (out itself, or a temporary of the result dtype when out
// has another dtype or overlaps an input; finish() copies it into out).
struct BinaryTarget {
  Tensor x, y, target;
  bool direct;

  const Tensor& finish(const Tensor& out, const char* op) const {
    if (!direct) write_result(out, target, op);
    out.bump_version();
    return out;
  }
};

// Checks the operands' devices and out= (castable result, same device), resizes out to the
// broadcast shape, and prepares the operands.
inline BinaryTarget binary_target(const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute,
                                  ScalarType result, const char* op) {
  check_same_device(a, b, op);
  const Device device = device_of(a, b);
  TCORE_CHECK_TYPE(can_cast(result, out.dtype()), op, ": result type ", result,
                   " can't be cast to the desired output type ", out.dtype());
  TCORE_CHECK_VALUE(out.device() == device, op, ": the out= tensor is on ", out.device().str(),
                    " but the inputs are on ", device.str());
  const std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes());
  resize_output(out, shape);
  Tensor x = cast(on_device(a, device), compute), y = cast(on_device(b, device), compute);
  const bool direct = out.dtype() == result && !partially_overlaps(out, x) && !partially_overlaps(out, y);
  Tensor target = direct ? out : empty_on(shape, result, device);
  return {std::move(x), std::move(y), std::move(target), direct};
}

}  // namespace tcore::native::cuda
