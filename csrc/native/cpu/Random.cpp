// Ranges (arange, linspace), eye, and the random operators over one default generator
// (csrc/core/Generator.cpp; each fill holds its lock).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <mutex>
#include <random>

#include <tcore/ops/arange_native.h>
#include <tcore/ops/eye_native.h>
#include <tcore/ops/linspace_native.h>
#include <tcore/ops/normal_native.h>
#include <tcore/ops/random_native.h>
#include <tcore/ops/uniform_native.h>

#include "native/Ranges.h"
#include "native/TensorUtils.h"
#include "tcore/core/Random.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"
#include "native/cpu/VecMath.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// Fills `self` (in place; contiguous or not) by fill(p, n, engine, tag): n values of the compute
// type T at p, from the generator's engine (its lock held).
template <typename Fill>
Tensor fill_random(const Tensor& self, const std::optional<Generator>& generator, const char* op, Fill fill) {
  assert_no_internal_overlap(self);
  // float16/bfloat16 are filled in float32 and rounded (uniform_ draws them at their own precision)
  const ScalarType t = opmath_type(self.dtype());
  const Tensor target = self.is_contiguous() && t == self.dtype() ? self : empty_cpu(self.sizes(), t);
  {
    const Generator gen = generator ? *generator : default_generator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    std::mt19937_64& engine = gen.engine();
    dispatch_dtype(t, op, [&](auto tag) { fill(target.template data_ptr<typename decltype(tag)::type>(), target.numel(), engine, tag); });
  }
  if (!target.is_same(self)) copy_kernel(self, target);
  self.bump_version();
  return self;
}

// A uniform number in [0, 1) of T's precision (24 bits for float32, 53 for float64), as torch draws
// them: one 64-bit draw each.
template <typename T>
T uniform01(std::mt19937_64& e) {
  constexpr int digits = std::numeric_limits<T>::digits;
  constexpr double scale = 1.0 / static_cast<double>(uint64_t{1} << digits);
  return static_cast<T>(static_cast<double>(e() >> (64 - digits)) * scale);
}

// n uniforms in [0, 1) at p: a float32 takes 24 bits, so one 64-bit draw gives two (the engine's
// own cost was half of rand's time)
template <typename T>
void fill_uniform01(T* p, int64_t n, std::mt19937_64& e) {
  if constexpr (std::is_same_v<T, float>) {
    constexpr double scale = 1.0 / static_cast<double>(1 << 24);
    int64_t i = 0;
    for (; i + 2 <= n; i += 2) {
      const uint64_t x = e();
      p[i] = static_cast<float>(static_cast<double>(x >> 40) * scale);
      p[i + 1] = static_cast<float>(static_cast<double>((x >> 8) & 0xffffffu) * scale);
    }
    if (i < n) p[i] = uniform01<float>(e);
  } else {
    for (int64_t i = 0; i < n; ++i) p[i] = uniform01<T>(e);
  }
}

// n uniforms in [0, 1) with `digits` bits each (float16: 11, bfloat16: 8): multiples of 2^-digits,
// exact in the type, so rounding never reaches 1 (torch's bound; its draws are finer near 0, where
// the type is: about a third of torch's float16 values are not such multiples). One 64-bit draw
// gives 64 / digits of them.
void fill_uniform_bits(float* p, int64_t n, int digits, std::mt19937_64& e) {
  const float scale = std::ldexp(1.0f, -digits);
  const uint64_t mask = (uint64_t{1} << digits) - 1;
  const int per_draw = 64 / digits;
  for (int64_t i = 0; i < n;) {
    uint64_t x = e();
    for (int k = 0; k < per_draw && i < n; ++k, ++i, x >>= digits) p[i] = static_cast<float>(x & mask) * scale;
  }
}

// Box-Muller, torch's scheme: a block of 16 uniforms gives 8 radii sqrt(-2 log(1 - u)) from its
// first half (1 - u: log never sees 0) and 8 angles 2 pi u from its second; cos to the first half,
// sin to the second. The blocks are the same at every capability, so every CPU takes as many
// numbers from the engine for a seed (the values agree but for their last bits: SLEEF with and
// without FMA); the radii and angles of up to 64 blocks are gathered into rows for SLEEF's vector
// log/sin/cos/sqrt.
constexpr int64_t kNormalBlock = 16;
template <typename T>
void box_muller_blocks(T* d, int64_t blocks, double mean, double std) {
  constexpr double kTwoPi = 6.283185307179586;
  constexpr int64_t kHalf = kNormalBlock / 2, kRows = 64 * kHalf;
  alignas(64) T u1[kRows], u2[kRows];
  for (int64_t b0 = 0; b0 < blocks; b0 += kRows / kHalf) {
    const int64_t nb = std::min(kRows / kHalf, blocks - b0), m = nb * kHalf;
    T* blk = d + b0 * kNormalBlock;
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t k = 0; k < kHalf; ++k) {
        u1[b * kHalf + k] = blk[b * kNormalBlock + k];
        u2[b * kHalf + k] = blk[b * kNormalBlock + kHalf + k];
      }
    int64_t i = 0;
#if defined(TCORE_VEC_MATH)
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      using V = typename vec::VecOf<T>::type;
      constexpr int64_t W = vec::width<T>;
      const V zero = {};
      for (; i + W <= m; i += W) {
        const V r = vec::sqrt((zero + T(-2)) * vec::Log::apply((zero + T(1)) - vec::load<V>(u1 + i)));
        const V theta = (zero + T(kTwoPi)) * vec::load<V>(u2 + i);
        vec::store(u1 + i, r * vec::Cos::apply(theta) * T(std) + T(mean));
        vec::store(u2 + i, r * vec::Sin::apply(theta) * T(std) + T(mean));
      }
    }
#endif
    for (; i < m; ++i) {
      const double r = std::sqrt(-2.0 * std::log(1.0 - static_cast<double>(u1[i])));
      const double theta = kTwoPi * static_cast<double>(u2[i]);
      u1[i] = static_cast<T>(r * std::cos(theta) * std + mean);
      u2[i] = static_cast<T>(r * std::sin(theta) * std + mean);
    }
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t k = 0; k < kHalf; ++k) {
        blk[b * kNormalBlock + k] = u1[b * kHalf + k];
        blk[b * kNormalBlock + kHalf + k] = u2[b * kHalf + k];
      }
  }
}

// normal_: uniforms first, then Box-Muller a block of 16 at a time (a last partial block done again
// over the last 16 elements with fresh uniforms, as torch does); fewer than 16 elements: one
// block's worth drawn, the first n kept. (std::normal_distribution, one element at a time:
// randn(2048, 2048) 97 ms, 6.7x torch's.)
template <typename T>
void normal_fill(T* p, int64_t n, double mean, double std, std::mt19937_64& e) {
  if (n < kNormalBlock) {
    T block[kNormalBlock];
    fill_uniform01(block, kNormalBlock, e);
    box_muller_blocks(block, 1, mean, std);
    std::copy(block, block + n, p);
    return;
  }
  fill_uniform01(p, n, e);
  box_muller_blocks(p, n / kNormalBlock, mean, std);
  if (n % kNormalBlock != 0) {
    fill_uniform01(p + n - kNormalBlock, kNormalBlock, e);
    box_muller_blocks(p + n - kNormalBlock, 1, mean, std);
  }
}

void check_cpu(std::optional<Device> device, const char* op) {
  TCORE_CHECK_VALUE(!device || device->type == DeviceType::CPU, op, ": only CPU tensors are supported here");
}

}  // namespace

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
              std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  check_cpu(device, "arange");
  const ArangeSpec r = arange_spec(start, end, step, dtype);
  if (is_reduced_float(r.dtype)) {
    return cast(arange(start, end, step, ScalarType::Float, layout, device, pin_memory), r.dtype);
  }
  Tensor result = empty_cpu({r.numel}, r.dtype);
  dispatch_numeric(r.dtype, "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = result.template data_ptr<T>();
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < r.numel; ++i) p[i] = static_cast<T>(r.start_int + i * r.step_int);
    } else {
      for (int64_t i = 0; i < r.numel; ++i) p[i] = static_cast<T>(r.start + static_cast<double>(i) * r.step);
    }
  });
  return result;
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  check_cpu(device, "linspace");
  TCORE_CHECK_VALUE(steps >= 0, "number of steps must be non-negative");
  const ScalarType t = dtype.value_or(default_float_dtype());
  check_scalar_fits(start, t);
  check_scalar_fits(end, t);
  if (is_reduced_float(t)) return cast(linspace(start, end, steps, ScalarType::Float, layout, device, pin_memory), t);
  Tensor result = empty_cpu({steps}, t);
  const double b = start.to_double(), e = end.to_double(), step = linspace_step(b, e, steps);
  dispatch_numeric(t, "linspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = result.template data_ptr<T>();
    for (int64_t i = 0; i < steps; ++i) p[i] = static_cast<T>(linspace_at(b, e, step, steps, i));
  });
  return result;
}

Tensor eye(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Layout> layout,
           std::optional<Device> device, std::optional<bool> pin_memory) {
  check_cpu(device, "eye");
  TCORE_CHECK_VALUE(n >= 0 && m >= 0, "eye: n and m must be non-negative, got ", n, " and ", m);
  const ScalarType t = dtype.value_or(default_float_dtype());
  Tensor result = empty_cpu({n, m}, t);
  dispatch_all_types(t, "eye", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = result.template data_ptr<T>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) p[i * m + j] = static_cast<T>(i == j);
  });
  return result;
}

Tensor uniform_(const Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "uniform_ expects a floating point tensor, got ", self.dtype());
  TCORE_CHECK_VALUE(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  // float16/bfloat16 are filled through float32 (fill_random) with their own precision's draws
  const int reduced_digits = self.dtype() == ScalarType::Half ? 11 : self.dtype() == ScalarType::BFloat16 ? 8 : 0;
  return fill_random(self, generator, "uniform_", [&](auto* p, int64_t n, std::mt19937_64& e, auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      if constexpr (std::is_same_v<T, float>) {
        if (reduced_digits) fill_uniform_bits(p, n, reduced_digits, e);
        else fill_uniform01(p, n, e);
      } else {
        fill_uniform01(p, n, e);
      }
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(static_cast<double>(p[i]) * (to - from) + from);
    }
  });
}

Tensor normal_(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "normal_ expects a floating point tensor, got ", self.dtype());
  TCORE_CHECK_VALUE(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  return fill_random(self, generator, "normal_", [&](auto* p, int64_t n, std::mt19937_64& e, auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) normal_fill(p, n, mean, std, e);
  });
}

namespace {
// What random_ may write into a tensor of dtype t, as torch's: [lo, hi], what the dtype holds (an
// integral dtype's range, float16's finite one; the wider floating dtypes hold any int64), beyond
// which it refuses; for a floating dtype, `digits`: it holds the integers within +-2^digits
// exactly, beyond which it warns. `name`: the element type's C++ name (torch's messages name it).
struct RandomBounds {
  int64_t lo, hi;
  int digits;  // (0: an integral dtype)
  const char* name;
};
RandomBounds random_bounds(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return {0, 1, 0, "bool"};
    case ScalarType::Byte: return {0, 255, 0, "unsigned char"};
    case ScalarType::Char: return {-128, 127, 0, "signed char"};
    case ScalarType::Short: return {INT16_MIN, INT16_MAX, 0, "short"};
    case ScalarType::Int: return {INT32_MIN, INT32_MAX, 0, "int"};
    case ScalarType::Long: return {INT64_MIN, INT64_MAX, 0, "long"};
    case ScalarType::Half: return {-65504, 65504, 11, "c10::Half"};
    case ScalarType::BFloat16: return {INT64_MIN, INT64_MAX, 8, "c10::BFloat16"};
    case ScalarType::Float: return {INT64_MIN, INT64_MAX, 24, "float"};
    case ScalarType::Double: return {INT64_MIN, INT64_MAX, 53, "double"};
    default: break;
  }
  throw TypeError(detail::str_cat("random_: not implemented for '", to_string(t), "'"));
}
}  // namespace

// Integers drawn uniformly from [from, to - 1], or from [from, the largest the dtype holds exactly]
// when to is None, with torch's checks in its order: beyond what the dtype holds an error, from >
// to - 1 an error, a floating dtype beyond its exact integers a warning.
Tensor random_(const Tensor& self, int64_t from, std::optional<int64_t> to, const std::optional<Generator>& generator) {
  const RandomBounds bounds = random_bounds(self.dtype());
  const int64_t exact = bounds.digits != 0 ? int64_t{1} << bounds.digits : 0;
  const auto holds = [&](int64_t v, const char* what) {
    TCORE_CHECK_VALUE(bounds.lo <= v && v <= bounds.hi, what, " is out of bounds for ", bounds.name);
  };
  const auto exactly = [&](int64_t v, const char* what) {
    if (bounds.digits == 0 || (-exact <= v && v <= exact)) return;
    warn(detail::str_cat(what, " is out of bounds [-(2^", bounds.digits, "), 2^", bounds.digits, "]. Due to precision "
                         "limitations ", bounds.name, " can support discrete uniform distribution only within this "
                         "range. This warning will become an error in version 1.7 release, please fix the code in "
                         "advance"));
  };
  int64_t high = bounds.digits != 0 ? exact : bounds.hi;
  if (to) {
    TCORE_CHECK_VALUE(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
    high = *to - 1;
  }
  holds(from, "from");
  if (to) holds(high, "to - 1");
  TCORE_CHECK_VALUE(from <= high, "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                    "casted to dtype, but got from=", from, " > to_inc=", high);
  exactly(from, "from");
  if (to) exactly(high, "to - 1");
  std::uniform_int_distribution<int64_t> dist(from, high);
  return fill_random(self, generator, "random_", [&](auto* p, int64_t n, std::mt19937_64& e, auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(dist(e));
  });
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
