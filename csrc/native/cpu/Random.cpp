// Ranges (arange, linspace), eye, and the random operators over one default generator
// (csrc/core/Generator.cpp; each fill holds its lock).
#include <cmath>
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

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// Fills `self` element by element with draw(engine) (in place; contiguous or not).
template <typename Draw>
Tensor fill_random(const Tensor& self, const std::optional<Generator>& generator, const char* op, Draw draw) {
  assert_no_internal_overlap(self);
  // float16/bfloat16 draw in float32 and round: the same numbers as a float32 tensor, rounded
  const ScalarType t = is_reduced_float(self.dtype()) ? ScalarType::Float : self.dtype();
  const Tensor target = self.is_contiguous() && t == self.dtype() ? self : empty_cpu(self.sizes(), t);
  {
    const Generator gen = generator ? *generator : default_generator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    std::mt19937_64& engine = gen.engine();
    dispatch_dtype(t, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = target.template data_ptr<T>();
      for (int64_t i = 0; i < target.numel(); ++i) p[i] = static_cast<T>(draw(engine, tag));
    });
  }
  if (!target.is_same(self)) copy_kernel(self, target);
  self.bump_version();
  return self;
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
  std::uniform_real_distribution<double> dist(from, to);
  return fill_random(self, generator, "uniform_", [&](std::mt19937_64& e, auto) { return dist(e); });
}

Tensor normal_(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "normal_ expects a floating point tensor, got ", self.dtype());
  TCORE_CHECK_VALUE(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  std::normal_distribution<double> dist(mean, std);
  return fill_random(self, generator, "normal_", [&](std::mt19937_64& e, auto) { return dist(e); });
}

Tensor random_(const Tensor& self, int64_t from, std::optional<int64_t> to, const std::optional<Generator>& generator) {
  const int64_t high = to.value_or(int64_t{1} << 53);
  TCORE_CHECK_VALUE(from < high, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", high);
  std::uniform_int_distribution<int64_t> dist(from, high - 1);
  return fill_random(self, generator, "random_", [&](std::mt19937_64& e, auto) { return dist(e); });
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
