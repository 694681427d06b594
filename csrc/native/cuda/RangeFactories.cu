// arange, linspace and eye on CUDA devices (device="cuda"): one thread per element, with
// the CPU kernels' rules (native/Ranges.h); float16/bfloat16 results are computed in
// float32 and converted on the device.
#include <type_traits>

#include <tcore/ops/arange_native.h>
#include <tcore/ops/eye_native.h>
#include <tcore/ops/linspace_native.h>

#include "native/Ranges.h"
#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

template <typename T>
__global__ void arange_kernel(T* out, int64_t n, double start, double step, int64_t start_int, int64_t step_int) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    if constexpr (std::is_integral_v<T>) out[i] = static_cast<T>(start_int + i * step_int);
    else out[i] = static_cast<T>(start + static_cast<double>(i) * step);
  }
}

template <typename T>
__global__ void linspace_kernel(T* out, int64_t n, double start, double end, double step) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x)
    out[i] = static_cast<T>(linspace_at(start, end, step, n, i));
}

template <typename T>
__global__ void eye_kernel(T* out, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x)
    out[i] = static_cast<T>(i / cols == i % cols);
}

Device cuda_device(std::optional<Device> device) { return device.value_or(Device(DeviceType::CUDA)); }

}  // namespace

Tensor arange_cuda(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
                   std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  const ArangeSpec r = arange_spec(start, end, step, dtype);
  if (is_reduced_float(r.dtype)) {
    return cast(arange_cuda(start, end, step, ScalarType::Float, layout, device, pin_memory), r.dtype);
  }
  Tensor out = empty_on({r.numel}, r.dtype, cuda_device(device));
  if (r.numel == 0) return out;
  dispatch_numeric(r.dtype, "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const cuda::OnDevice on(out);
    arange_kernel<T><<<cuda::grid_for(r.numel), cuda::kThreads, 0, on.stream>>>(
        out.template data_ptr<T>(), r.numel, r.start, r.step, r.start_int, r.step_int);
    cuda::check(cudaGetLastError(), "arange_kernel launch");
  });
  return out;
}

Tensor linspace_cuda(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TCORE_CHECK_VALUE(steps >= 0, "number of steps must be non-negative");
  const ScalarType t = dtype.value_or(default_float_dtype());
  check_scalar_fits(start, t);
  check_scalar_fits(end, t);
  if (is_reduced_float(t)) {
    return cast(linspace_cuda(start, end, steps, ScalarType::Float, layout, device, pin_memory), t);
  }
  Tensor out = empty_on({steps}, t, cuda_device(device));
  if (steps == 0) return out;
  const double b = start.to_double(), e = end.to_double();
  dispatch_numeric(t, "linspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const cuda::OnDevice on(out);
    linspace_kernel<T><<<cuda::grid_for(steps), cuda::kThreads, 0, on.stream>>>(
        out.template data_ptr<T>(), steps, b, e, linspace_step(b, e, steps));
    cuda::check(cudaGetLastError(), "linspace_kernel launch");
  });
  return out;
}

Tensor eye_cuda(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  TCORE_CHECK_VALUE(n >= 0 && m >= 0, "eye: n and m must be non-negative, got ", n, " and ", m);
  const ScalarType t = dtype.value_or(default_float_dtype());
  if (is_reduced_float(t)) return cast(eye_cuda(n, m, ScalarType::Float, layout, device, pin_memory), t);
  Tensor out = empty_on({n, m}, t, cuda_device(device));
  if (n == 0 || m == 0) return out;
  dispatch_dtype(t, "eye", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const cuda::OnDevice on(out);
    eye_kernel<T><<<cuda::grid_for(n * m), cuda::kThreads, 0, on.stream>>>(out.template data_ptr<T>(), n, m);
    cuda::check(cudaGetLastError(), "eye_kernel launch");
  });
  return out;
}

}  // namespace tcore::native
