// prod, amax/amin, max/min (with indices), argmax/argmin, all/any, var/std, logsumexp,
// softmax/log_softmax, layer_norm's rows and the scans cumsum/cumprod on CUDA devices, with the CPU kernels' rules
// (native/cpu/ReduceMore.cpp): the input is laid out as contiguous rows (the kept dims first, the
// reduced ones last: rows_for), and one block reduces each row through shared memory; NaN wins
// in the extremes, the first index on ties; float16/bfloat16 inputs compute in float32. The scans
// give each short row to one thread and each long row to a block (chunks per thread, a scan of
// the chunks' totals in shared memory).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <tcore/ops/all_native.h>
#include <tcore/ops/amax_native.h>
#include <tcore/ops/amin_native.h>
#include <tcore/ops/any_native.h>
#include <tcore/ops/argmax_native.h>
#include <tcore/ops/argmin_native.h>
#include <tcore/ops/cumprod_native.h>
#include <tcore/ops/cumsum_native.h>
#include <tcore/ops/log_softmax_native.h>
#include <tcore/ops/logsumexp_native.h>
#include <tcore/ops/max_native.h>
#include <tcore/ops/min_native.h>
#include <tcore/ops/native_layer_norm_native.h>
#include <tcore/ops/prod_native.h>
#include <tcore/ops/softmax_native.h>
#include <tcore/ops/std_native.h>
#include <tcore/ops/var_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/IntoOutput.h"
#include "native/cpu/Reduce.h"
#include "native/cuda/DeviceLoops.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

// ------------------------------------------------------------------ one block per row
// Combines every thread's value of a block (blockDim.x a power of two) into thread 0's; `shared`
// holds blockDim.x values.
template <typename Acc, typename Combine>
__device__ Acc block_reduce(Acc v, Acc* shared, Combine combine) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + stride]);
    __syncthreads();
  }
  const Acc result = shared[0];
  __syncthreads();  // shared may be reused by the caller
  return result;
}

template <typename T>
__device__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

template <typename T>
struct ValueIndex {
  T value;
  int64_t index;
};

// out[r] = R::finish(reduction of row r): R gives init(), step(acc, value, index), combine(a, b), finish(acc, n).
template <typename T, typename Out, typename R>
__global__ void row_reduce_kernel(const T* in, Out* out, int64_t inner, R r) {
  using Acc = decltype(r.init());
  extern __shared__ __align__(16) unsigned char smem[];
  Acc* shared = reinterpret_cast<Acc*>(smem);
  const T* row = in + static_cast<int64_t>(blockIdx.x) * inner;
  Acc acc = r.init();
  for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) acc = r.step(acc, row[i], i);
  acc = block_reduce(acc, shared, [&](Acc a, Acc b) { return r.combine(a, b); });
  if (threadIdx.x == 0) out[blockIdx.x] = r.finish(acc, inner);
}

// out: rows.outer values of type Out on rows' device.
template <typename T, typename Out, typename R>
void launch_rows(const Rows& rows, Out* out, R r) {
  using Acc = decltype(r.init());
  if (rows.outer == 0) return;
  TCORE_CHECK(rows.outer <= int64_t{0x7fffffff}, "CUDA reductions take at most 2**31 - 1 rows");
  const cuda::OnDevice on(rows.data);
  row_reduce_kernel<T, Out, R><<<static_cast<unsigned>(rows.outer), cuda::kThreads, cuda::kThreads * sizeof(Acc),
                                 on.stream>>>(rows.data.template data_ptr<T>(), out, rows.inner, r);
  cuda::check(cudaGetLastError(), "row_reduce_kernel launch");
}

template <typename T>
__global__ void split_kernel(const ValueIndex<T>* pairs, T* values, int64_t* indices, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    values[i] = pairs[i].value;
    indices[i] = pairs[i].index;
  }
}

// The identity of max (Greater) or min over T: -inf/inf, or the extreme value of an integer type
// (a host function: numeric_limits is not callable on the device).
template <typename T, bool Greater>
T extreme_identity() {
  if constexpr (std::is_floating_point_v<T>)
    return Greater ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  else return Greater ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
}

template <typename T, bool Greater>
struct Extreme {  // amax/amin, max()/min(): NaN wins
  T identity = extreme_identity<T, Greater>();
  __device__ T init() const { return identity; }
  __device__ T step(T a, T v, int64_t) const { return combine(a, v); }
  __device__ T combine(T a, T b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return (Greater ? b > a : b < a) ? b : a;
  }
  __device__ T finish(T a, int64_t) const { return a; }
};

template <typename T, bool Greater, bool Values>
struct ArgExtreme {  // argmax/argmin, max.dim/min.dim: NaN wins, then the first index on ties
  T identity = extreme_identity<T, Greater>();
  __device__ ValueIndex<T> init() const { return {identity, INT64_MAX}; }
  __device__ ValueIndex<T> step(ValueIndex<T> a, T v, int64_t i) const { return combine(a, {v, i}); }
  __device__ ValueIndex<T> combine(ValueIndex<T> a, ValueIndex<T> b) const {
    const bool an = is_nan(a.value), bn = is_nan(b.value);
    if (an || bn) {
      if (an && bn) return b.index < a.index ? b : a;
      return an ? a : b;
    }
    if (Greater ? b.value > a.value : b.value < a.value) return b;
    if (b.value == a.value && b.index < a.index) return b;
    return a;
  }
  __device__ auto finish(ValueIndex<T> a, int64_t) const {
    if constexpr (Values) return a;
    else return a.index;
  }
};

template <typename T>
struct Product {
  __device__ T init() const { return T(1); }
  __device__ T step(T a, T v, int64_t) const { return static_cast<T>(a * v); }
  __device__ T combine(T a, T b) const { return static_cast<T>(a * b); }
  __device__ T finish(T a, int64_t) const { return a; }
};

template <bool All>
struct AllAny {
  __device__ bool init() const { return All; }
  __device__ bool step(bool a, bool v, int64_t) const { return All ? a && v : a || v; }
  __device__ bool combine(bool a, bool b) const { return All ? a && b : a || b; }
  __device__ bool finish(bool a, int64_t) const { return a; }
};

// ------------------------------------------------------------------ rows needing two passes
// Each kernel reads its row twice or three times; the row's statistics are shared by the block.
template <typename T>
__global__ void variance_kernel(const T* in, T* out, int64_t inner, double correction, bool take_sqrt) {
  extern __shared__ __align__(16) unsigned char smem[];
  double* shared = reinterpret_cast<double*>(smem);
  const T* row = in + static_cast<int64_t>(blockIdx.x) * inner;
  const auto add = [](double a, double b) { return a + b; };
  double s = 0;
  for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) s += static_cast<double>(row[i]);
  const double mean = block_reduce(s, shared, add) / static_cast<double>(inner);
  double ss = 0;
  for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) {
    const double d = static_cast<double>(row[i]) - mean;
    ss += d * d;
  }
  ss = block_reduce(ss, shared, add);
  if (threadIdx.x == 0) {
    const double denominator = static_cast<double>(inner) - correction;
    const double v = ss / (denominator > 0 ? denominator : 0.0);
    out[blockIdx.x] = static_cast<T>(take_sqrt ? ::sqrt(v) : v);
  }
}

// One row of layer_norm per block: its mean, the mean of squared deviations about it (two passes,
// in double: no cancellation), then (x - mean) * rstd * w + b written out.
template <typename T>
__global__ void layer_norm_kernel(const T* x, const T* w, const T* b, T* y, T* mean_out, T* rstd_out, int64_t n,
                                  double eps) {
  extern __shared__ __align__(16) unsigned char smem[];
  double* shared = reinterpret_cast<double*>(smem);
  const int64_t r = blockIdx.x;
  const T* xr = x + r * n;
  T* yr = y + r * n;
  const auto add = [](double a, double c) { return a + c; };
  double s = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += static_cast<double>(xr[i]);
  const T m = static_cast<T>(block_reduce(s, shared, add) / static_cast<double>(n));
  double ss = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const double d = static_cast<double>(xr[i] - m);
    ss += d * d;
  }
  const T rstd = static_cast<T>(1.0 / ::sqrt(block_reduce(ss, shared, add) / static_cast<double>(n) + eps));
  if (threadIdx.x == 0) {
    mean_out[r] = m;
    rstd_out[r] = rstd;
  }
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    T v = (xr[i] - m) * rstd;
    if (w) v *= w[i];
    if (b) v += b[i];
    yr[i] = v;
  }
}

// Mode: 0 logsumexp (out has one value per row), 1 softmax, 2 log_softmax (out has the row's shape).
template <typename T, int Mode>
__global__ void softmax_kernel(const T* in, T* out, int64_t inner) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  extern __shared__ __align__(16) unsigned char smem[];
  Acc* shared = reinterpret_cast<Acc*>(smem);
  const int64_t r = blockIdx.x;
  const T* x = in + r * inner;
  Acc m = -static_cast<Acc>(INFINITY);
  for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) {
    const Acc v = static_cast<Acc>(x[i]);
    m = (v != v || v > m) ? v : m;  // NaN wins
  }
  m = block_reduce(m, shared, [](Acc a, Acc b) { return (a != a || a > b) ? a : b; });
  if (Mode == 0 && ::isinf(m)) {  // every element -inf, or an inf: the result is that (as on the CPU)
    if (threadIdx.x == 0) out[r] = static_cast<T>(m);
    return;
  }
  const Acc shift = m;  // an inf in the row (or a row of -inf): NaN results, as exp(inf - inf) on the CPU
  Acc s = 0;
  for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) s += ::exp(static_cast<Acc>(x[i]) - shift);
  s = block_reduce(s, shared, [](Acc a, Acc b) { return a + b; });
  if constexpr (Mode == 0) {
    if (threadIdx.x == 0) out[r] = static_cast<T>(shift + ::log(s));
  } else {
    T* y = out + r * inner;
    if constexpr (Mode == 1) {
      const Acc inv = Acc(1) / s;
      for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) y[i] = static_cast<T>(::exp(static_cast<Acc>(x[i]) - shift) * inv);
    } else {
      const Acc total = shift + ::log(s);
      for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) y[i] = static_cast<T>(static_cast<Acc>(x[i]) - total);
    }
  }
}

// One long row per block: each thread scans its chunk's total, the block scans the totals in
// shared memory (Hillis-Steele), then each thread writes its chunk from its offset.
template <typename T, bool Product>
__global__ void row_scan_kernel(const T* in, T* out, int64_t inner) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* totals = reinterpret_cast<T*>(smem);
  const int64_t r = blockIdx.x;
  const T* x = in + r * inner;
  T* y = out + r * inner;
  const auto op = [](T a, T b) { return Product ? static_cast<T>(a * b) : static_cast<T>(a + b); };
  const T identity = Product ? T(1) : T(0);
  const int64_t chunk = (inner + blockDim.x - 1) / blockDim.x;
  const int64_t begin = threadIdx.x * chunk, end = begin + chunk < inner ? begin + chunk : inner;
  T acc = identity;
  for (int64_t i = begin; i < end; ++i) acc = op(acc, x[i]);
  totals[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {  // inclusive scan of the totals
    const T left = threadIdx.x >= stride ? totals[threadIdx.x - stride] : identity;
    __syncthreads();
    totals[threadIdx.x] = op(left, totals[threadIdx.x]);
    __syncthreads();
  }
  acc = threadIdx.x > 0 ? totals[threadIdx.x - 1] : identity;
  for (int64_t i = begin; i < end; ++i) {
    acc = op(acc, x[i]);
    y[i] = acc;
  }
}

template <typename T, bool Product>
__global__ void scan_kernel(const T* in, T* out, int64_t outer, int64_t inner) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < outer; r += int64_t(blockDim.x) * gridDim.x) {
    T acc = Product ? T(1) : T(0);
    for (int64_t i = 0; i < inner; ++i) {
      acc = Product ? static_cast<T>(acc * in[r * inner + i]) : static_cast<T>(acc + in[r * inner + i]);
      out[r * inner + i] = acc;
    }
  }
}

// ------------------------------------------------------------------ host side
std::vector<bool> every_dim(const Tensor& self) { return std::vector<bool>(static_cast<size_t>(self.dim()), true); }




template <bool Greater>
void extreme_into(const Tensor& result, const Tensor& self, const std::vector<bool>& mask, const char* op) {
  const Rows rows = rows_for(self, mask, false, self.dtype());
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_rows<T, T>(rows, result.template data_ptr<T>(), Extreme<T, Greater>{});
  });
}

template <bool Greater>
Tensor extreme(const Tensor& self, const char* op) {
  const Rows rows = rows_for(self, every_dim(self), false, self.dtype());
  check_nonempty(rows, self, op);
  Tensor result = empty_on({}, self.dtype(), self.device());
  extreme_into<Greater>(result, self, every_dim(self), op);
  return result;
}

template <bool Greater>
std::tuple<Tensor, Tensor> extreme_dim(const Tensor& self, int64_t dim, bool keepdim, const char* op) {
  const Rows rows = rows_for(self, one_dim(self, dim), keepdim, self.dtype());
  check_nonempty(rows, self, op);
  Tensor values = empty_on(rows.shape, self.dtype(), self.device());
  Tensor indices = empty_on(rows.shape, ScalarType::Long, self.device());
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (rows.outer == 0) return;
    const Tensor pairs = empty_on({rows.outer * int64_t{sizeof(ValueIndex<T>)}}, ScalarType::Byte, self.device());
    auto* p = reinterpret_cast<ValueIndex<T>*>(pairs.template data_ptr<uint8_t>());
    launch_rows<T, ValueIndex<T>>(rows, p, ArgExtreme<T, Greater, true>{});
    const cuda::OnDevice on(values);
    split_kernel<T><<<cuda::grid_for(rows.outer), cuda::kThreads, 0, on.stream>>>(
        p, values.template data_ptr<T>(), indices.template data_ptr<int64_t>(), rows.outer);
    cuda::check(cudaGetLastError(), "split_kernel launch");
  });
  return {values, indices};
}

template <bool Greater>
void arg_extreme_into(const Tensor& result, const Tensor& self, std::optional<int64_t> dim, const char* op) {
  const Rows rows = rows_for(self, dim ? one_dim(self, *dim) : every_dim(self), false, self.dtype());
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_rows<T, int64_t>(rows, result.template data_ptr<int64_t>(), ArgExtreme<T, Greater, false>{});
  });
}

template <bool All>
void all_any_out(const Tensor& self, std::optional<int64_t> dim, const Tensor& out) {
  const std::vector<bool> mask = dim ? one_dim(self, *dim) : every_dim(self);
  const bool bytes = out.dtype() == ScalarType::Byte && self.dtype() != ScalarType::Byte;
  const Tensor x = bytes ? cast(self, ScalarType::Byte) : self;
  into_output(out, ScalarType::Bool, {self}, [&](const Tensor& r) {
    launch_rows<bool, bool>(rows_for(x, mask, false, ScalarType::Bool), r.template data_ptr<bool>(), AllAny<All>{});
  });
}

Tensor variance(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim,
                bool take_sqrt, const char* op) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), op, "(): input dtype should be floating point, but got ", self.dtype());
  const ScalarType t = self.dtype();
  const Rows rows = rows_for(self, reduction_mask(dim, self.dim(), op), keepdim, t);
  Tensor result = empty_on(rows.shape, t, self.device());
  if (rows.outer == 0) return result;
  const double c = correction ? correction->to_double() : 1.0;
  const cuda::OnDevice on(result);
  dispatch_floating(t, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    variance_kernel<T><<<static_cast<unsigned>(rows.outer), cuda::kThreads, cuda::kThreads * sizeof(double),
                         on.stream>>>(rows.data.template data_ptr<T>(), result.template data_ptr<T>(), rows.inner, c,
                                      take_sqrt);
    cuda::check(cudaGetLastError(), "variance_kernel launch");
  });
  return result;
}

template <int Mode>
void launch_softmax(const Rows& rows, const Tensor& out, ScalarType t, const char* op) {
  if (rows.outer == 0 || rows.inner == 0) return;
  const cuda::OnDevice on(out);
  dispatch_floating(t, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
    softmax_kernel<T, Mode><<<static_cast<unsigned>(rows.outer), cuda::kThreads, cuda::kThreads * sizeof(Acc),
                              on.stream>>>(rows.data.template data_ptr<T>(), out.template data_ptr<T>(), rows.inner);
    cuda::check(cudaGetLastError(), "softmax_kernel launch");
  });
}

// into result (contiguous, self's sizes, of the floating dtype t)
template <bool Log>
void softmax_into(const Tensor& result, const Tensor& self, int64_t dim, ScalarType t, const char* op) {
  const std::vector<bool> mask = one_dim(self, dim);
  const Rows rows = rows_for(self, mask, true, t);
  const Tensor rowwise = rows_out(result, mask, t);
  launch_softmax<Log ? 2 : 1>(rows, rowwise, t, op);
  write_rows_back(result, rowwise, mask);
}

template <bool Log>
void softmax_out(const Tensor& self, int64_t dim, const Tensor& out, const char* op) {
  const ScalarType t = compute_dtype(out);
  into_output(out, t, {self}, [&](const Tensor& r) { softmax_into<Log>(r, self, dim, t, op); });
}

constexpr int64_t kLongScan = 1024;  // rows at least this long are scanned by a block each

template <bool Product>
void scan_out(const Tensor& self, int64_t dim, const Tensor& out, const char* op) {
  const ScalarType t = compute_dtype(out);
  into_output(out, t, {self}, [&](const Tensor& result) {
    const std::vector<bool> mask = one_dim(self, dim);
    const Rows rows = rows_for(self, mask, true, t);
    const Tensor scanned = rows_out(result, mask, t);
    if (rows.outer > 0 && rows.inner > 0) {
      const cuda::OnDevice on(result);
      dispatch_dtype(t, op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (rows.inner >= kLongScan && rows.outer <= int64_t{0x7fffffff}) {  // a block per row
          row_scan_kernel<T, Product><<<static_cast<unsigned>(rows.outer), cuda::kThreads, cuda::kThreads * sizeof(T),
                                        on.stream>>>(rows.data.template data_ptr<T>(), scanned.template data_ptr<T>(),
                                                     rows.inner);
          cuda::check(cudaGetLastError(), "row_scan_kernel launch");
        } else {  // a thread per row
          scan_kernel<T, Product><<<cuda::grid_for(rows.outer), cuda::kThreads, 0, on.stream>>>(
              rows.data.template data_ptr<T>(), scanned.template data_ptr<T>(), rows.outer, rows.inner);
          cuda::check(cudaGetLastError(), "scan_kernel launch");
        }
      });
    }
    write_rows_back(result, scanned, mask);
  });
}

}  // namespace

namespace cuda {
void layer_norm_rows(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& out, const Tensor& mean,
                     const Tensor& rstd, int64_t rows, int64_t n, double eps) {
  TCORE_CHECK(rows <= int64_t{0x7fffffff}, "layer_norm on CUDA takes at most 2**31 - 1 rows");
  if (rows == 0) return;
  const OnDevice on(out);
  dispatch_floating(x.dtype(), "layer_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    layer_norm_kernel<T><<<static_cast<unsigned>(rows), kThreads, kThreads * sizeof(double), on.stream>>>(
        x.template data_ptr<T>(), w.defined() ? w.template data_ptr<T>() : nullptr,
        b.defined() ? b.template data_ptr<T>() : nullptr, out.template data_ptr<T>(), mean.template data_ptr<T>(),
        rstd.template data_ptr<T>(), n, eps);
  });
  check(cudaGetLastError(), "layer_norm_kernel launch");
}
}  // namespace cuda

// the device-neutral kernel (native/cpu/Normalization.cpp): it checks and lays out; the rows are above
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_cuda(const Tensor& input, IntArrayRef normalized_shape,
                                                          const std::optional<Tensor>& weight,
                                                          const std::optional<Tensor>& bias, double eps) {
  return TCORE_CPU_NS::native_layer_norm(input, normalized_shape, weight, bias, eps);
}

TCORE_IMPL_FUNC(prod_out_cuda)(const Tensor& self, int64_t dim, bool, std::optional<ScalarType>, const Tensor& out) {
  const ScalarType t = compute_dtype(out);
  into_output(out, t, {self}, [&](const Tensor& r) {
    const Rows rows = rows_for(self, one_dim(self, dim), false, t);
    dispatch_dtype(t, "prod", [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch_rows<T, T>(rows, r.template data_ptr<T>(), Product<T>{});
    });
  });
}

TCORE_IMPL_FUNC(amax_out_cuda)(const Tensor& self, IntArrayRef dim, bool, const Tensor& out) {
  const Tensor x = widen(self) ? f32(self) : self;
  into_output(out, x.dtype(), {self}, [&](const Tensor& r) {
    extreme_into<true>(r, x, reduction_mask(dim, x.dim(), "amax"), "amax");
  });
}
TCORE_IMPL_FUNC(amin_out_cuda)(const Tensor& self, IntArrayRef dim, bool, const Tensor& out) {
  const Tensor x = widen(self) ? f32(self) : self;
  into_output(out, x.dtype(), {self}, [&](const Tensor& r) {
    extreme_into<false>(r, x, reduction_mask(dim, x.dim(), "amin"), "amin");
  });
}
Tensor max_cuda(const Tensor& self) {
  if (widen(self)) return cast(max_cuda(f32(self)), self.dtype());
  return extreme<true>(self, "max");
}
Tensor min_cuda(const Tensor& self) {
  if (widen(self)) return cast(min_cuda(f32(self)), self.dtype());
  return extreme<false>(self, "min");
}
std::tuple<Tensor, Tensor> max_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  if (widen(self)) {
    auto [values, indices] = max_cuda(f32(self), dim, keepdim);
    return {cast(values, self.dtype()), indices};
  }
  return extreme_dim<true>(self, dim, keepdim, "max");
}
std::tuple<Tensor, Tensor> min_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  if (widen(self)) {
    auto [values, indices] = min_cuda(f32(self), dim, keepdim);
    return {cast(values, self.dtype()), indices};
  }
  return extreme_dim<false>(self, dim, keepdim, "min");
}
TCORE_IMPL_FUNC(argmax_out_cuda)(const Tensor& self, std::optional<int64_t> dim, bool, const Tensor& out) {
  const Tensor x = widen(self) ? f32(self) : self;
  into_output(out, ScalarType::Long, {self}, [&](const Tensor& r) { arg_extreme_into<true>(r, x, dim, "argmax"); });
}
TCORE_IMPL_FUNC(argmin_out_cuda)(const Tensor& self, std::optional<int64_t> dim, bool, const Tensor& out) {
  const Tensor x = widen(self) ? f32(self) : self;
  into_output(out, ScalarType::Long, {self}, [&](const Tensor& r) { arg_extreme_into<false>(r, x, dim, "argmin"); });
}

TCORE_IMPL_FUNC(all_all_out_cuda)(const Tensor& self, const Tensor& out) { all_any_out<true>(self, std::nullopt, out); }
TCORE_IMPL_FUNC(all_out_cuda)(const Tensor& self, int64_t dim, bool, const Tensor& out) { all_any_out<true>(self, dim, out); }
TCORE_IMPL_FUNC(any_all_out_cuda)(const Tensor& self, const Tensor& out) { all_any_out<false>(self, std::nullopt, out); }
TCORE_IMPL_FUNC(any_out_cuda)(const Tensor& self, int64_t dim, bool, const Tensor& out) { all_any_out<false>(self, dim, out); }

Tensor var_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  if (widen(self)) return cast(var_cuda(f32(self), dim, correction, keepdim), self.dtype());
  return variance(self, dim, correction, keepdim, false, "var");
}
Tensor std_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  if (widen(self)) return cast(std_cuda(f32(self), dim, correction, keepdim), self.dtype());
  return variance(self, dim, correction, keepdim, true, "std");
}

// max-shifted, so that large inputs do not overflow; integer inputs compute in float32.
Tensor logsumexp_cuda(const Tensor& self, IntArrayRef dim, bool keepdim) {
  if (widen(self)) return cast(logsumexp_cuda(f32(self), dim, keepdim), self.dtype());
  const ScalarType t = is_floating(self.dtype()) ? self.dtype() : default_float_dtype();
  const Rows rows = rows_for(self, reduction_mask(dim, self.dim(), "logsumexp"), keepdim, t);
  Tensor result = empty_on(rows.shape, t, self.device());
  if (rows.inner == 0) {  // the log of an empty sum
    dispatch_floating(t, "logsumexp", [&](auto tag) {
      using T = typename decltype(tag)::type;
      cuda::launch_fill<T>(result, -std::numeric_limits<T>::infinity());
    });
    return result;
  }
  launch_softmax<0>(rows, result, t, "logsumexp");
  return result;
}

TCORE_IMPL_FUNC(softmax_out_cuda)(const Tensor& self, int64_t dim, std::optional<ScalarType>, const Tensor& out) {
  softmax_out<false>(self, dim, out, "softmax");
}
TCORE_IMPL_FUNC(log_softmax_out_cuda)(const Tensor& self, int64_t dim, std::optional<ScalarType>, const Tensor& out) {
  softmax_out<true>(self, dim, out, "log_softmax");
}
TCORE_IMPL_FUNC(cumsum_out_cuda)(const Tensor& self, int64_t dim, std::optional<ScalarType>, const Tensor& out) {
  scan_out<false>(self, dim, out, "cumsum");
}
TCORE_IMPL_FUNC(cumprod_out_cuda)(const Tensor& self, int64_t dim, std::optional<ScalarType>, const Tensor& out) {
  scan_out<true>(self, dim, out, "cumprod");
}

}  // namespace tcore::native
