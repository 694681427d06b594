// One pass of Adam/AdamW over a parameter and its two moment buffers (tcore.optim.Adam with
// fused=True, contiguous float32/float64 parameters): the per-operator form's steps in its order
// (lerp of the first moment by 1 - beta1, addcmul of the second by 1 - beta2, the factors taken in
// double, as torch's Python floats; addcdiv of the step), in one read and one write of each tensor
// instead of about eleven passes.
#include <cmath>

#include <tcore/ops/_fused_adam_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Parallel.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

Tensor _fused_adam_(const Tensor& self, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq, double lr,
                    double beta1, double beta2, double eps, double weight_decay, double step, bool decoupled,
                    bool maximize) {
  for (const Tensor* t : {&grad, &exp_avg, &exp_avg_sq}) {
    TCORE_CHECK_VALUE(t->sizes().vec() == self.sizes().vec(), "_fused_adam_: every tensor must have the parameter's "
                      "shape ", shape_str(self.sizes()), ", got ", shape_str(t->sizes()));
    TCORE_CHECK_TYPE(t->dtype() == self.dtype(), "_fused_adam_: every tensor must have the parameter's dtype ",
                     to_string(self.dtype()), ", got ", to_string(t->dtype()));
  }
  for (const Tensor* t : {&self, &grad, &exp_avg, &exp_avg_sq})
    TCORE_CHECK_VALUE(t->is_contiguous(), "_fused_adam_: every tensor must be contiguous");
  TCORE_CHECK_VALUE(step >= 1, "_fused_adam_: step must be at least 1, got ", step);
  const double bias1 = 1 - std::pow(beta1, step), bias2_sqrt = std::sqrt(1 - std::pow(beta2, step));
  const double step_size = lr / bias1;
  dispatch_floating(self.dtype(), "_fused_adam_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(self.data_ptr());
    const T* g = static_cast<const T*>(grad.data_ptr());
    T* m = static_cast<T*>(exp_avg.data_ptr());
    T* v = static_cast<T*>(exp_avg_sq.data_ptr());
    const T om1 = static_cast<T>(1 - beta1), om2 = static_cast<T>(1 - beta2), b2 = static_cast<T>(beta2);
    const T wd = static_cast<T>(weight_decay), shrink = static_cast<T>(1 - lr * weight_decay);
    const T e = static_cast<T>(eps), neg_s = static_cast<T>(-step_size), b2s = static_cast<T>(bias2_sqrt);
    parallel_for(0, self.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        T gi = maximize ? -g[i] : g[i];
        if (weight_decay != 0) {
          if (decoupled) {
            p[i] *= shrink;
          } else {
            gi += wd * p[i];
          }
        }
        m[i] = om1 < T(0.5) ? m[i] + om1 * (gi - m[i]) : gi - (gi - m[i]) * (T(1) - om1);  // (torch's lerp)
        v[i] = v[i] * b2 + om2 * gi * gi;
        p[i] = p[i] + neg_s * m[i] / (std::sqrt(v[i]) / b2s + e);
      }
    });
  });
  self.bump_version();
  exp_avg.bump_version();
  exp_avg_sq.bump_version();
  return self;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
