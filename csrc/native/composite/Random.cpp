// randperm: a Fisher-Yates shuffle with a tcore Generator (None: the default one). A
// CompositeExplicitAutograd kernel (any device: the permutation is made on the CPU).
#include <algorithm>
#include <mutex>
#include <numeric>
#include <random>

#include <tcore/ops/randperm_native.h>

#include "native/TensorUtils.h"
#include "tcore/core/Random.h"

namespace tcore::native {
namespace {

Generator chosen(const std::optional<Generator>& generator) { return generator ? *generator : default_generator(); }

}  // namespace

Tensor randperm(int64_t n, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)layout;
  (void)pin_memory;
  TCORE_CHECK(n >= 0, "n must be non-negative, got", n);
  const ScalarType t = dtype.value_or(ScalarType::Long);
  TCORE_CHECK(t != ScalarType::Bool, "randperm is not implemented for bool");
  if (is_floating(t)) {
    const int64_t limit = t == ScalarType::Half ? 2048 : t == ScalarType::BFloat16 ? 256
                          : t == ScalarType::Float ? (int64_t{1} << 24) : (int64_t{1} << 53);
    TCORE_CHECK(n <= limit + 1, "n cannot be greater than ", limit + 1, " for randperm with dtype ", to_string(t));
  } else if (t != ScalarType::Long) {
    const int64_t limit = t == ScalarType::Int ? INT32_MAX : t == ScalarType::Short ? INT16_MAX
                          : t == ScalarType::Char ? INT8_MAX : UINT8_MAX;
    TCORE_CHECK(n <= limit + 1, "n cannot be greater than ", limit + 1, " for randperm with dtype ", to_string(t));
  }
  Tensor perm = empty_cpu({n}, ScalarType::Long);
  int64_t* p = perm.data_ptr<int64_t>();
  std::iota(p, p + n, int64_t{0});
  {
    const Generator gen = chosen(generator);
    std::lock_guard<std::mutex> lock(gen.mutex());
    for (int64_t i = n - 1; i > 0; --i) {
      std::uniform_int_distribution<int64_t> pick(0, i);
      std::swap(p[i], p[pick(gen.engine())]);
    }
  }
  return on_device(cast(perm, t), device.value_or(Device()));
}

Tensor randperm(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
                std::optional<bool> pin_memory) {
  return randperm(n, std::nullopt, dtype, layout, device, pin_memory);
}

}  // namespace tcore::native
