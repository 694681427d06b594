// uniform_ and normal_ on CUDA devices: a counter-based generator (splitmix64 of the
// element index and a seed drawn from the tcore Generator), so each element is
// independent of the launch shape and a seeded generator reproduces the same tensor.
#include <mutex>
#include <type_traits>

#include <tcore/ops/normal_native.h>
#include <tcore/ops/uniform_native.h>

#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"
#include "tcore/core/Random.h"

namespace tcore::native {
namespace {

__device__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// A uniform in [0, 1) with `digits` bits: a multiple of 2^-digits
template <int digits = 53>
__device__ double unit(uint64_t bits) {
  return static_cast<double>(bits >> (64 - digits)) * (1.0 / static_cast<double>(uint64_t{1} << digits));
}

// T's precision: rand()'s values are exact in T, so rounding never gives 1 (torch's draws)
template <typename T>
constexpr int kDigits = std::is_same_v<T, double> ? 53 : std::is_same_v<T, float> ? 24 : std::is_same_v<T, Half> ? 11 : 8;

template <typename T>
__global__ void uniform_kernel(T* out, int64_t n, uint64_t seed, double from, double to) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const double u = unit<kDigits<T>>(splitmix64(seed ^ static_cast<uint64_t>(i)));
    out[i] = static_cast<T>(from + (to - from) * u);
  }
}

template <typename T>
__global__ void normal_kernel(T* out, int64_t n, uint64_t seed, double mean, double std) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const uint64_t base = seed ^ (static_cast<uint64_t>(i) * 2);
    const double u1 = 1.0 - unit(splitmix64(base));  // (0, 1]: log is finite
    const double u2 = unit(splitmix64(base + 1));
    out[i] = static_cast<T>(mean + std * ::sqrt(-2.0 * ::log(u1)) * ::cospi(2.0 * u2));
  }
}

uint64_t draw_seed(const std::optional<Generator>& generator) {
  const Generator g = generator ? *generator : default_generator();
  std::lock_guard<std::mutex> lock(g.mutex());
  return g.engine()();
}

template <typename Launch>
Tensor fill_random(const Tensor& self, const char* op, Launch launch) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), op, " expects a floating point tensor, got ", self.dtype());
  const Tensor target = self.is_contiguous() ? self : empty_on(self.sizes(), self.dtype(), self.device());
  if (target.numel() > 0) {
    dispatch_floating(self.dtype(), op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const cuda::OnDevice on(target);
      launch(target.template data_ptr<T>(), target.numel(), on.stream);
    });
    cuda::check(cudaGetLastError(), op);
  }
  if (!target.is_same(self)) copy_kernel(self, target);
  self.bump_version();
  return self;
}

}  // namespace

Tensor uniform_cuda_(const Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  const uint64_t seed = draw_seed(generator);
  return fill_random(self, "uniform_", [&](auto* p, int64_t n, cudaStream_t s) {
    uniform_kernel<<<cuda::grid_for(n), cuda::kThreads, 0, s>>>(p, n, seed, from, to);
  });
}

Tensor normal_cuda_(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  const uint64_t seed = draw_seed(generator);
  return fill_random(self, "normal_", [&](auto* p, int64_t n, cudaStream_t s) {
    normal_kernel<<<cuda::grid_for(n), cuda::kThreads, 0, s>>>(p, n, seed, mean, std);
  });
}

}  // namespace tcore::native
