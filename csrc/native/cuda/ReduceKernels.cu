// sum and mean on CUDA devices: the input laid out as rows (kept dims first, reduced dims
// last, contiguous, in the result dtype), one block per row, a shared-memory tree over
// partial sums accumulated in double (floating) or int64 (integers).
#include <type_traits>

#include <tcore/ops/mean_native.h>
#include <tcore/ops/sum_native.h>

#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

template <typename T, typename Acc>
__global__ void row_sum_kernel(const T* in, T* out, int64_t inner, bool mean) {
  __shared__ Acc partial[cuda::kThreads];
  const T* row = in + blockIdx.x * inner;
  Acc acc = 0;
  for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) acc += static_cast<Acc>(row[i]);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[blockIdx.x] = mean ? static_cast<T>(static_cast<double>(partial[0]) / static_cast<double>(inner))
                           : static_cast<T>(partial[0]);
  }
}

Tensor reduce(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, ScalarType out_dtype, bool mean,
              const char* op) {
  const std::vector<bool> mask = reduction_mask(dim, self.dim(), op);
  std::vector<int64_t> sizes, strides;
  int64_t outer = 1, inner = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t d = 0; d < mask.size(); ++d) {
      if (mask[d] != (pass == 1)) continue;
      sizes.push_back(self.sizes()[d]);
      strides.push_back(self.strides()[d]);
      (pass ? inner : outer) *= self.sizes()[d];
    }
  }
  const Tensor rows = empty_on(sizes, out_dtype, self.device());
  copy_kernel(rows, make_view(self, sizes, strides, self.storage_offset()));
  Tensor result = empty_on(reduced_shape(self.sizes(), mask, keepdim), out_dtype, self.device());
  if (outer == 0) return result;
  dispatch_numeric(out_dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
    row_sum_kernel<T, Acc><<<static_cast<unsigned>(outer), cuda::kThreads, 0, cuda::stream_of(result)>>>(
        rows.template data_ptr<T>(), result.template data_ptr<T>(), inner, mean);
    cuda::check(cudaGetLastError(), "row_sum_kernel launch");
  });
  return result;
}

ScalarType sum_type(const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype();
}

ScalarType mean_type(const Tensor& self, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype.value_or(self.dtype());
  TCORE_CHECK_TYPE(is_floating(t), "mean(): could not infer output dtype. Input dtype must be either a floating "
                   "point or complex dtype. Got: ", t);
  return t;
}

}  // namespace

Tensor sum_cuda(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce(self, std::nullopt, false, sum_type(self, dtype), false, "sum");
}
Tensor sum_dim_cuda(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce(self, dim, keepdim, sum_type(self, dtype), false, "sum");
}
Tensor sum_out_cuda(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                    const Tensor& out) {
  write_result(out, reduce(self, dim, keepdim, dtype.value_or(out.dtype()), false, "sum"), "sum");
  return out;
}
Tensor mean_cuda(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce(self, std::nullopt, false, mean_type(self, dtype), true, "mean");
}
Tensor mean_dim_cuda(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce(self, dim, keepdim, mean_type(self, dtype), true, "mean");
}
Tensor mean_out_cuda(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                     const Tensor& out) {
  write_result(out, reduce(self, dim, keepdim, dtype.value_or(out.dtype()), true, "mean"), "mean");
  return out;
}

}  // namespace tcore::native
