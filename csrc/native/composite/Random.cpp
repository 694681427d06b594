// randperm: a Fisher-Yates shuffle with a tcore Generator (None: the default one). A
// CompositeExplicitAutograd kernel (any device: the permutation is made on the CPU).
// bernoulli, exponential, geometric, log_normal, cauchy: below.
#include <algorithm>
#include <mutex>
#include <numeric>
#include <random>

#include <tcore/ops/add.h>
#include <tcore/ops/all.h>
#include <tcore/ops/bernoulli_native.h>
#include <tcore/ops/cauchy_native.h>
#include <tcore/ops/ceil.h>
#include <tcore/ops/clamp_min.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/div.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/empty_like.h>
#include <tcore/ops/exp.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/exponential_native.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/geometric_native.h>
#include <tcore/ops/le.h>
#include <tcore/ops/log1p.h>
#include <tcore/ops/log_normal_native.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/neg.h>
#include <tcore/ops/normal.h>
#include <tcore/ops/randperm_native.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/tan.h>
#include <tcore/ops/uniform.h>

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

// ---------------------------------------------------------------- torch's other random fills
// Each from a float64 draw of uniform_ (or normal_) on self's device, transformed by pointwise
// operators and written into self in its dtype: any device, float16/bfloat16 and the tails
// (an exponential from a float32 uniform stops near 17) from a 53-bit draw.
namespace {

constexpr double kPi = 3.14159265358979323846;

// float64 uniform draws in [0, 1) shaped like self, on self's device
Tensor uniform64(const Tensor& self, const std::optional<Generator>& generator) {
  Tensor u = tcore::empty(self.sizes(), ScalarType::Double, std::nullopt, self.device());
  return ops::uniform_::call(u, 0.0, 1.0, generator);
}

// self (in place) holding `values` in self's dtype
Tensor written(const Tensor& self, const Tensor& values) {
  tcore::copy_(self, values, false);
  return self;
}

void check_continuous(const Tensor& self, const char* name) {
  TCORE_CHECK_VALUE(is_floating(self.dtype()), name,
                    " distribution is a continuous probability distribution. dtype must be a floating point but you "
                    "specified ", to_string(self.dtype()));
}

}  // namespace

// 1 where u < p: P(1) = p exactly for p a multiple of 2^-53
Tensor bernoulli_(const Tensor& self, double p, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  return written(self, tcore::lt(uniform64(self, generator), Scalar(p)));
}

Tensor bernoulli_(const Tensor& self, const Tensor& p, const std::optional<Generator>& generator) {
  TCORE_CHECK_TYPE(is_floating(p.dtype()), "bernoulli_: expected a floating point probability tensor, got ",
                   to_string(p.dtype()));
  TCORE_CHECK_VALUE(p.numel() == 0 || item<bool>(tcore::all(tcore::logical_and(tcore::ge(p, Scalar(0)), tcore::le(p, Scalar(1))))),
                    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
  const Tensor probability = tcore::expand(p, self.sizes(), false);
  return written(self, tcore::lt(uniform64(self, generator), probability));
}

Tensor bernoulli(const Tensor& self, const std::optional<Generator>& generator) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "\"bernoulli_tensor_cpu_p_\" not implemented for '",
                   to_string(self.dtype()), "'");
  Tensor out = tcore::empty_like(self);
  return bernoulli_(out, self, generator);
}

Tensor bernoulli(const Tensor& self, double p, const std::optional<Generator>& generator) {
  Tensor out = tcore::empty_like(self);
  return bernoulli_(out, p, generator);
}

Tensor bernoulli(const Tensor& self, const Tensor& p, const std::optional<Generator>& generator) {
  Tensor out = tcore::empty_like(self);
  return bernoulli_(out, p, generator);
}

// -log(1 - u) / lambd
Tensor exponential_(const Tensor& self, double lambd, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  check_continuous(self, "Exponential");
  return written(self, tcore::div(tcore::neg(tcore::log1p(tcore::neg(uniform64(self, generator)))), Scalar(lambd)));
}

Tensor exponential(const Tensor& self, double lambd, const std::optional<Generator>& generator) {
  Tensor out = tcore::empty_like(self);
  return exponential_(out, lambd, generator);
}

// the number of trials up to the first success: ceil(log(1 - u) / log(1 - p)), at least 1
Tensor geometric_(const Tensor& self, double p, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  const Tensor trials = tcore::ceil(tcore::div(tcore::log1p(tcore::neg(uniform64(self, generator))), Scalar(std::log1p(-p))));
  return written(self, tcore::clamp_min(trials, Scalar(1.0)));
}

Tensor geometric(const Tensor& self, double p, const std::optional<Generator>& generator) {
  Tensor out = tcore::empty_like(self);
  return geometric_(out, p, generator);
}

// exp(normal(mean, std))
Tensor log_normal_(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "\"log_normal_cpu\" not implemented for '", to_string(self.dtype()), "'");
  Tensor z = tcore::empty(self.sizes(), ScalarType::Double, std::nullopt, self.device());
  return written(self, tcore::exp(ops::normal_::call(z, mean, std, generator)));
}

Tensor log_normal(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  Tensor out = tcore::empty_like(self);
  return log_normal_(out, mean, std, generator);
}

// median + sigma tan(pi (u - 1/2))
Tensor cauchy_(const Tensor& self, double median, double sigma, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  check_continuous(self, "Cauchy");
  const Tensor angle = tcore::mul(tcore::sub(uniform64(self, generator), Scalar(0.5), 1), Scalar(kPi));
  return written(self, tcore::add(tcore::mul(tcore::tan(angle), Scalar(sigma)), Scalar(median), 1));
}

Tensor cauchy(const Tensor& self, double median, double sigma, const std::optional<Generator>& generator) {
  Tensor out = tcore::empty_like(self);
  return cauchy_(out, median, sigma, generator);
}

}  // namespace tcore::native
