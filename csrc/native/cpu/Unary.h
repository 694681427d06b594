#pragma once
// The unary kernels' shared machinery (UnaryOps.cpp, Activation.cpp): the input cast to the
// compute dtype, float16/bfloat16 through float32, the result of a given dtype, out= and in place.
#include "tcore/core/CPUCapability.h"
#include <type_traits>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"
#include "native/cpu/ReducedFloatLoops.h"
#include "native/cpu/VecMath.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

// A unary kernel that also computes contiguous float32 runs: kernel(compute, target, x) as any
// kernel, kernel.floats(o, x, n) for o[i] = f(x[i]) over float32 (the same function the kernel
// applies to a contiguous float32 tensor), what float16/bfloat16 tensors go through chunk by chunk.
template <typename TensorFn, typename FloatRuns>
struct WithFloatRuns {
  TensorFn tensor;
  FloatRuns floats;
  void operator()(ScalarType compute, const Tensor& out, const Tensor& x) const { tensor(compute, out, x); }
};
template <typename TensorFn, typename FloatRuns>
constexpr WithFloatRuns<TensorFn, FloatRuns> with_float_runs(TensorFn tensor, FloatRuns floats) {
  return {tensor, floats};
}
template <typename K, typename = void>
struct HasFloatRuns : std::false_type {};
template <typename K>
struct HasFloatRuns<K, std::void_t<decltype(&K::floats)>> : std::true_type {};

// The float32 runs of a floating kernel, and its float16/bfloat16 runs where the vector functions
// convert them in registers (vec::converts): runs(o, x, n, f) with f the float32 function.
template <typename Runs, typename F>
struct FloatRuns {
  Runs runs;
  F f;
  void operator()(float* o, const float* x, int64_t n) const { runs(o, x, n, f); }
  template <typename H, typename = std::enable_if_t<vec::converts<H>>>
  void operator()(H* o, const H* x, int64_t n) const { runs(o, x, n, f); }
};

// A floating kernel with vector runs: make(tag) gives f for values of T (strided elements),
// runs(o, i, n, f) computes a contiguous run of T (SLEEF's vectors, or a loop where T has none),
// and the float32 runs of float16/bfloat16 inputs are the same runs over float.
template <typename Make, typename Runs>
constexpr auto floating_runs(const char* op, Make make, Runs runs) {
  return with_float_runs(
      [op, make, runs](ScalarType compute, const Tensor& out, const Tensor& x) {
        dispatch_floating(compute, op, [&](auto tag) {
          using T = typename decltype(tag)::type;
          const auto f = make(tag);
          unary_loop_runs<T, T>(out, x, [&f](T v) { return static_cast<T>(f(v)); },
                                [&](T* o, const T* i, int64_t n) { runs(o, i, n, f); });
        });
      },
      FloatRuns<Runs, decltype(make(type_tag<float>{}))>{runs, make(type_tag<float>{})});
}

// out = f(self) computed in `compute`: make(compute, target, x) writes f(x) into target (both of
// dtype compute, target apart from x or x itself); a kernel WithFloatRuns computes float16/bfloat16
// tensors in float32 chunks (ReducedFloatLoops.h), the others through a float32 copy.
template <typename Make>
Tensor unary_into(const Tensor& out, const Tensor& self, ScalarType compute, const char* op, Make make) {
  TCORE_CHECK_TYPE(can_cast(compute, out.dtype()), op, ": result type ", compute,
                   " can't be cast to the desired output type ", out.dtype());
  resize_elementwise_output(out, self.sizes(), {&self});
  assert_no_partial_overlap(out, self);  // (torch's TensorIterator check, for in-place and out= alike)
  if constexpr (HasFloatRuns<Make>::value) {
    if (is_reduced_float(compute) && self.dtype() == compute && out.dtype() == compute && !partially_overlaps(out, self)) {
      dispatch_reduced_float(compute, [&](auto tag) {
        reduced_float_unary_loop<typename decltype(tag)::type>(out, self, make.floats);
      });
      out.bump_version();
      return out;
    }
  }
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
