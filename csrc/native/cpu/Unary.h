#pragma once
// The unary kernels' shared machinery (UnaryOps.cpp, Activation.cpp): the input cast to the
// compute dtype, float16/bfloat16 through float32, the result of a given dtype, out= and in place.
#include "tcore/core/CPUCapability.h"

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

// out = f(self) computed in `compute`: make(compute, target, x) writes f(x) into target (both of
// dtype compute, target apart from x or x itself).
template <typename Make>
Tensor unary_into(const Tensor& out, const Tensor& self, ScalarType compute, const char* op, Make make) {
  TCORE_CHECK_TYPE(can_cast(compute, out.dtype()), op, ": result type ", compute,
                   " can't be cast to the desired output type ", out.dtype());
  if (is_reduced_float(compute) && self.dtype() == compute && out.dtype() == compute && self.is_contiguous() &&
      out.is_contiguous() && self.sizes().vec() == out.sizes().vec() &&
      (out.is_same(self) || !out.storage().is_alias_of(self.storage()))) {
    // contiguous float16/bfloat16: blocks of 64K elements through float32 buffers in L2 (float32
    // temporaries of the whole tensor made a float16 relu 4.5x torch's)
    constexpr int64_t kBlock = 65536;
    const int64_t n = self.numel();
    const Tensor xs = empty_cpu({std::min(kBlock, n)}, ScalarType::Float), ys = empty_cpu({std::min(kBlock, n)}, ScalarType::Float);
    dispatch_reduced_float(compute, [&](auto tag) {
      using H = typename decltype(tag)::type;
      for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
        const int64_t len = std::min(kBlock, n - i0);
        const Tensor x = len == xs.numel() ? xs : make_view(xs, {len}, {1}, 0);
        const Tensor y = len == ys.numel() ? ys : make_view(ys, {len}, {1}, 0);
        convert_run<float, H>(x.data_ptr<float>(), static_cast<const H*>(self.data_ptr()) + i0, len);
        make(ScalarType::Float, y, x);
        convert_run<H, float>(static_cast<H*>(out.data_ptr()) + i0, y.data_ptr<float>(), len);
      }
    });
    out.bump_version();
    return out;
  }
  resize_elementwise_output(out, self.sizes(), {&self});
  if (is_reduced_float(compute)) {  // float16/bfloat16: computed in float32, rounded on store
    const Tensor tmp = unary_into(empty_output(self.sizes(), ScalarType::Float, {&out}), self, ScalarType::Float, op, make);
    write_result(out, tmp, op);
    out.bump_version();
    return out;
  }
  const Tensor x = cast(self, compute);
  const bool direct = out.dtype() == compute && !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_output(self.sizes(), compute, {&out});
  make(compute, target, x);
  if (!direct) write_result(out, target, op);
  out.bump_version();
  return out;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
