// mse_loss: a composition of other operators (autograd records what it calls).
#include <tcore/ops/mean.h>
#include <tcore/ops/mse_loss_native.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>

#include "native/TensorUtils.h"

namespace tcore::native {

// reduction: 0 none, 1 mean (the default), 2 sum, as PyTorch's Reduction enum
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  TCORE_CHECK_VALUE(reduction >= 0 && reduction <= 2, "mse_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
                    reduction);
  const Tensor diff = tcore::sub(self, target, 1);
  const Tensor squared = tcore::mul(diff, diff);
  if (reduction == 0) return squared;
  return reduction == 1 ? tcore::mean(squared, std::optional<ScalarType>()) : tcore::sum(squared, std::optional<ScalarType>());
}

}  // namespace tcore::native
