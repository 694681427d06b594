// sum, mean and prod over every dim, as PyTorch defines them (CompositeExplicitAutograd: their
// own derivatives, any backend, Meta included): the structured dim reductions, prod over the
// flattened input.
#include <tcore/ops/mean.h>
#include <tcore/ops/mean_native.h>
#include <tcore/ops/prod.h>
#include <tcore/ops/prod_native.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/sum_native.h>

namespace tcore::native {

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  return tcore::sum(self, std::nullopt, false, dtype);
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return tcore::mean(self, std::nullopt, false, dtype);
}

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  return tcore::prod(tcore::reshape(self, {-1}), 0, false, dtype);
}

}  // namespace tcore::native
