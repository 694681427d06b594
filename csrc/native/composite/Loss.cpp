// mse_loss on devices without a kernel of their own (native/cpu/Loss.cpp has the CPU's), and its
// backward: compositions of other operators. The backward is CompositeImplicitAutograd, so that
// its own gradient (create_graph) is recorded from what it runs.
#include <tcore/ops/mean.h>
#include <tcore/ops/mse_loss_backward_native.h>
#include <tcore/ops/mse_loss_native.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>

#include "native/Loss.h"
#include "native/TensorUtils.h"

namespace tcore::native {

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_loss_reduction(reduction, "mse_loss");
  const Tensor diff = tcore::sub(self, target, 1);
  const Tensor squared = tcore::mul(diff, diff);
  if (reduction == 0) return squared;
  return reduction == 1 ? tcore::mean(squared, std::optional<ScalarType>()) : tcore::sum(squared, std::optional<ScalarType>());
}

// 2 (self - target) grad_output, divided by the number of elements for the mean
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  check_loss_reduction(reduction, "mse_loss_backward");
  double scale = 2.0;
  if (reduction == 1) {
    int64_t n = 1;
    for (int64_t d : broadcast_shapes(self.sizes(), target.sizes())) n *= d;
    scale /= static_cast<double>(n);  // n = 0: no element takes the (inf) scale
  }
  // the scale on grad_output first: one value for the mean and sum, so two passes over the elements
  return tcore::mul(tcore::sub(self, target, 1), tcore::mul(grad_output, Scalar(scale)));
}

}  // namespace tcore::native
