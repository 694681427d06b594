// sum and mean over every dim, as PyTorch defines them (CompositeExplicitAutograd: their own
// derivatives, any backend): the structured dim-list reductions with no dims.
#include <tcore/ops/mean.h>
#include <tcore/ops/mean_native.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/sum_native.h>

namespace tcore::native {

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  return tcore::sum(self, std::nullopt, false, dtype);
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return tcore::mean(self, std::nullopt, false, dtype);
}

}  // namespace tcore::native
