// The impls of the structured sum and mean on CUDA devices. The input is read in place when it
// is contiguous with the reduced dims last (rows) or first (columns), else laid out as rows by
// rows_for. Rows: blocks over (row, chunk of the row), a shared-memory tree per block; a long
// row is split over several blocks whose partial sums a second pass adds, so that a sum of
// everything fills the device. Columns: one thread per kept element, coalesced across a warp,
// the reduced rows split over blocks the same way. Partial sums are double (floating, float16 and
// bfloat16 included) or int64 (integers), as on the CPU.
#include <algorithm>
#include <type_traits>

#include <tcore/ops/mean_native.h>
#include <tcore/ops/sum_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Reduce.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

// Enough blocks to fill every multiprocessor of a large GPU several times over.
constexpr int64_t kTargetBlocks = 1024;
constexpr int64_t kMinPerBlock = 4096;  // elements a block sums at least before a split pays

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// out[row * gridDim.y + part] = (sum of in[row * inner + part * chunk ...] ) / divisor
template <typename In, typename Acc, typename Out>
__global__ void row_sum_kernel(const In* in, Out* out, int64_t inner, int64_t chunk, double divisor) {
  __shared__ Acc partial[cuda::kThreads];
  const int64_t row = blockIdx.x, part = blockIdx.y;
  const In* p = in + row * inner;
  const int64_t begin = part * chunk, end = begin + chunk < inner ? begin + chunk : inner;
  Acc acc = 0;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) acc += static_cast<Acc>(p[i]);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const int64_t at = row * gridDim.y + part;
    if (divisor != 1.0) out[at] = static_cast<Out>(static_cast<double>(partial[0]) / divisor);
    else out[at] = static_cast<Out>(partial[0]);
  }
}

// out[part * cols + c] = (sum over r in the part's rows of in[r * cols + c]) / divisor
template <typename In, typename Acc, typename Out>
__global__ void col_sum_kernel(const In* in, Out* out, int64_t rows, int64_t cols, int64_t chunk, double divisor) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c >= cols) return;
  const int64_t begin = blockIdx.y * chunk, end = begin + chunk < rows ? begin + chunk : rows;
  Acc acc = 0;
  for (int64_t r = begin; r < end; ++r) acc += static_cast<Acc>(in[r * cols + c]);
  const int64_t at = blockIdx.y * cols + c;
  if (divisor != 1.0) out[at] = static_cast<Out>(static_cast<double>(acc) / divisor);
  else out[at] = static_cast<Out>(acc);
}

template <typename T, typename Acc>
void sum_rows(const T* in, T* out, int64_t outer, int64_t inner, double divisor, const Device& device,
              cudaStream_t stream) {
  const int64_t parts = std::max<int64_t>(1, std::min({ceil_div(kTargetBlocks, outer), ceil_div(inner, kMinPerBlock),
                                                       int64_t{1024}}));
  if (parts == 1) {
    row_sum_kernel<T, Acc, T><<<dim3(static_cast<unsigned>(outer)), cuda::kThreads, 0, stream>>>(in, out, inner, inner,
                                                                                               divisor);
    cuda::check(cudaGetLastError(), "row_sum_kernel launch");
    return;
  }
  const Tensor partial = empty_on({outer * parts}, scalar_type_of<Acc>::value, device);
  const int64_t chunk = ceil_div(inner, parts);
  row_sum_kernel<T, Acc, Acc><<<dim3(static_cast<unsigned>(outer), static_cast<unsigned>(parts)), cuda::kThreads, 0,
                                stream>>>(in, partial.data_ptr<Acc>(), inner, chunk, 1.0);
  cuda::check(cudaGetLastError(), "row_sum_kernel launch");
  row_sum_kernel<Acc, Acc, T><<<dim3(static_cast<unsigned>(outer)), cuda::kThreads, 0, stream>>>(
      partial.data_ptr<Acc>(), out, parts, parts, divisor);
  cuda::check(cudaGetLastError(), "row_sum_kernel launch");
}

template <typename T, typename Acc>
void sum_cols(const T* in, T* out, int64_t rows, int64_t cols, double divisor, const Device& device,
              cudaStream_t stream) {
  const int64_t col_blocks = ceil_div(cols, cuda::kThreads);
  const int64_t parts = std::max<int64_t>(1, std::min({ceil_div(kTargetBlocks, col_blocks), ceil_div(rows, 64),
                                                       int64_t{65535}}));
  TCORE_CHECK(col_blocks <= int64_t{0x7fffffff}, "sum: too many columns for one launch");
  const dim3 block(cuda::kThreads);
  if (parts == 1) {
    col_sum_kernel<T, Acc, T><<<dim3(static_cast<unsigned>(col_blocks)), block, 0, stream>>>(in, out, rows, cols, rows,
                                                                                           divisor);
    cuda::check(cudaGetLastError(), "col_sum_kernel launch");
    return;
  }
  const Tensor partial = empty_on({parts * cols}, scalar_type_of<Acc>::value, device);
  col_sum_kernel<T, Acc, Acc><<<dim3(static_cast<unsigned>(col_blocks), static_cast<unsigned>(parts)), block, 0,
                                stream>>>(in, partial.data_ptr<Acc>(), rows, cols, ceil_div(rows, parts), 1.0);
  cuda::check(cudaGetLastError(), "col_sum_kernel launch");
  col_sum_kernel<Acc, Acc, T><<<dim3(static_cast<unsigned>(col_blocks)), block, 0, stream>>>(
      partial.data_ptr<Acc>(), out, parts, cols, parts, divisor);
  cuda::check(cudaGetLastError(), "col_sum_kernel launch");
}

// `self` read as (reduced, kept) when that view of it is contiguous: a reduction over leading dims.
bool leading_reduction(const Tensor& self, const std::vector<bool>& mask, ScalarType dtype, int64_t& rows,
                       int64_t& cols) {
  if (self.dtype() != dtype || !self.is_contiguous()) return false;
  rows = cols = 1;
  bool kept_seen = false;
  for (size_t d = 0; d < mask.size(); ++d) {
    if (self.sizes()[d] == 1) continue;  // a size-1 dim is neither
    if (mask[d]) {
      if (kept_seen) return false;
      rows *= self.sizes()[d];
    } else {
      kept_seen = true;
      cols *= self.sizes()[d];
    }
  }
  return rows > 1 && cols > 1;
}

// result: contiguous, of the reduced shape and the result dtype.
void reduce(const Tensor& result, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, bool mean,
            const char* op) {
  const ScalarType out_dtype = result.dtype();
  TCORE_CHECK_TYPE(out_dtype != ScalarType::Bool, op, ": not implemented for 'bool' results");
  const std::vector<bool> mask = reduction_mask(dim, self.dim(), op);
  const cuda::OnDevice on(result);
  int64_t rows = 0, cols = 0;
  if (result.numel() > 0 && leading_reduction(self, mask, out_dtype, rows, cols)) {
    dispatch_all_types(out_dtype, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
      sum_cols<T, Acc>(self.template data_ptr<T>(), result.template data_ptr<T>(), rows, cols,
                       mean ? static_cast<double>(rows) : 1.0, self.device(), on.stream);
    });
    return;
  }
  const Rows r = rows_for(self, mask, keepdim, out_dtype);
  if (r.outer == 0) return;
  dispatch_all_types(out_dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
    sum_rows<T, Acc>(r.data.template data_ptr<T>(), result.template data_ptr<T>(), r.outer, r.inner,
                     mean ? static_cast<double>(r.inner) : 1.0, self.device(), on.stream);
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
