// multinomial: sampling with a tcore Generator (None: the default one; randperm is in
// native/composite/Random.cpp). multinomial draws with replacement by inverting the
// cumulative distribution, and without replacement by PyTorch's exponential race: each
// category gets E/p with E ~ Exp(1), and the k smallest keys win (a zero-probability
// category only after every other one).
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <random>

#include <tcore/ops/multinomial_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "tcore/core/Random.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

Generator chosen(const std::optional<Generator>& generator) { return generator ? *generator : default_generator(); }

}  // namespace

// ------------------------------------------------------------------ multinomial
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement, const std::optional<Generator>& generator) {
  TCORE_CHECK(self.dim() == 1 || self.dim() == 2, "prob_dist must be 1 or 2 dim");
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "multinomial only supports floating-point dtypes for input, got: ",
                   to_string(self.dtype()));
  TCORE_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t cats = self.sizes()[self.dim() - 1];
  const int64_t dists = self.dim() == 1 ? 1 : self.sizes()[0];
  TCORE_CHECK(replacement || num_samples <= cats, "cannot sample n_sample > prob_dist.size(-1) samples without "
              "replacement");
  const Tensor probs = contiguous_copy(cast(self, ScalarType::Double));
  const double* p = probs.data_ptr<double>();
  Tensor out = empty_cpu(self.dim() == 1 ? std::vector<int64_t>{num_samples} : std::vector<int64_t>{dists, num_samples},
                         ScalarType::Long);
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t d = 0; d < dists; ++d) {  // check every row before drawing anything
    double total = 0;
    for (int64_t c = 0; c < cats; ++c) {
      const double v = p[d * cats + c];
      TCORE_CHECK(std::isfinite(v) && v >= 0, "probability tensor contains either `inf`, `nan` or element < 0");
      total += v;
    }
    TCORE_CHECK(total > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
  }
  const Generator gen = chosen(generator);
  std::lock_guard<std::mutex> lock(gen.mutex());
  std::vector<double> acc(static_cast<size_t>(cats));
  std::vector<int64_t> order(static_cast<size_t>(cats));
  for (int64_t d = 0; d < dists; ++d) {
    const double* row = p + d * cats;
    if (replacement) {
      std::partial_sum(row, row + cats, acc.begin());
      std::uniform_real_distribution<double> u(0.0, acc.back());
      for (int64_t s = 0; s < num_samples; ++s) {
        const double x = u(gen.engine());
        int64_t c = std::upper_bound(acc.begin(), acc.end(), x) - acc.begin();
        while (c > 0 && (c >= cats || row[c] == 0)) --c;  // never a zero-probability category
        o[d * num_samples + s] = c;
      }
    } else {
      std::exponential_distribution<double> e(1.0);
      for (int64_t c = 0; c < cats; ++c) {
        const double draw = e(gen.engine());
        acc[c] = row[c] > 0 ? draw / row[c] : INFINITY;
      }
      std::iota(order.begin(), order.end(), int64_t{0});
      std::partial_sort(order.begin(), order.begin() + num_samples, order.end(),
                        [&](int64_t a, int64_t b) { return acc[a] < acc[b] || (acc[a] == acc[b] && a < b); });
      std::copy(order.begin(), order.begin() + num_samples, o + d * num_samples);
    }
  }
  return out;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
