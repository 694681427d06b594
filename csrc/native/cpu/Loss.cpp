// mse_loss's CPU kernel: the mean or sum of (self - target)^2 in one pass over both when they have
// one shape, one float dtype and contiguous elements (float lanes within 4096-element blocks, the
// blocks added in double on the threads in a fixed order: the same result for any thread count);
// anything else (reduction none, broadcasting, strides, float16/bfloat16) through the operators of
// the composite (native/composite/Loss.cpp). The composite's three passes cost 1.4x torch's time.
#include <tcore/ops/mse_loss_native.h>

#include "native/Loss.h"
#include "native/TensorUtils.h"
#include "native/cpu/Math.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

Tensor mse_loss_cpu(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_loss_reduction(reduction, "mse_loss");
  const ScalarType dtype = self.dtype();
  const bool one_pass = reduction != Reduction::None && self.sizes().vec() == target.sizes().vec() &&
                        target.dtype() == dtype && (dtype == ScalarType::Float || dtype == ScalarType::Double) &&
                        self.is_contiguous() && target.is_contiguous();
  if (!one_pass) return native::mse_loss(self, target, reduction);
  Tensor out = empty_cpu({}, dtype);
  dispatch_floating(dtype, "mse_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t n = self.numel();
    const double total = parallel_sum_rows_of([](auto a, auto b) { return (a - b) * (a - b); }, n,
                                              self.template data_ptr<T>(), target.template data_ptr<T>());
    *out.template data_ptr<T>() = static_cast<T>(reduction == Reduction::Mean ? total / static_cast<double>(n) : total);
  });
  return out;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
