// The impls of the structured sum and mean on CUDA devices: the input laid out as rows by rows_for (kept dims first,
// reduced dims last, contiguous, in the result dtype), one block per row, a shared-memory tree over
// partial sums accumulated in double (floating) or int64 (integers).
#include <type_traits>

#include <tcore/ops/mean_native.h>
#include <tcore/ops/sum_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Reduce.h"
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

// result: contiguous, of the reduced shape and the result dtype.
void reduce(const Tensor& result, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, bool mean,
            const char* op) {
  const ScalarType out_dtype = result.dtype();
  const Rows rows = rows_for(self, reduction_mask(dim, self.dim(), op), keepdim, out_dtype);
  if (rows.outer == 0) return;
  dispatch_numeric(out_dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
    const cuda::OnDevice on(result);
    row_sum_kernel<T, Acc><<<static_cast<unsigned>(rows.outer), cuda::kThreads, 0, on.stream>>>(
        rows.data.template data_ptr<T>(), result.template data_ptr<T>(), rows.inner, mean);
    cuda::check(cudaGetLastError(), "row_sum_kernel launch");
  });
}

}  // namespace

// The impls of the structured sum.IntList_out and mean.out (meta functions: native/ReduceOps.cpp).
TCORE_IMPL_FUNC(sum_out_cuda)(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType>,
                             const Tensor& out) {
  into_output(out, out.dtype(), {self}, [&](const Tensor& r) { reduce(r, self, dim, keepdim, false, "sum"); });
}
TCORE_IMPL_FUNC(mean_out_cuda)(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType>,
                              const Tensor& out) {
  into_output(out, out.dtype(), {self}, [&](const Tensor& r) { reduce(r, self, dim, keepdim, true, "mean"); });
}

}  // namespace tcore::native
