#pragma once
// How a structured kernel's impl writes its output (sized and typed by the meta function), on any
// device: f(result) fills a contiguous tensor of out's sizes in the `compute` dtype, which is out
// itself when out is contiguous, of that dtype and shares no memory with any input, else a fresh
// tensor then copied (and cast) into out. Either way out's version goes up once.
#include <functional>
#include <initializer_list>

#include <tcore/ops/expand.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

using Inputs = std::initializer_list<std::reference_wrapper<const Tensor>>;

// The dtype an impl computes out's values in: out's own, float32 for a float16/bfloat16 out (its
// values are rounded once, on into_output's copy).
inline ScalarType compute_dtype(const Tensor& out) {
  return opmath_type(out.dtype());
}

template <typename F>
void into_output(const Tensor& out, ScalarType compute, Inputs inputs, const F& f) {
  bool direct = out.dtype() == compute && out.is_contiguous();
  for (const Tensor& in : inputs) direct = direct && !out.storage().is_alias_of(in.storage());
  if (direct) {
    f(out);
    out.bump_version();
    return;
  }
  const Tensor tmp = empty_on(out.sizes(), compute, out.device());
  f(tmp);
  copy_kernel(out, tmp);
  out.bump_version();
}

// into_output for addmm's kernels, which add products onto self broadcast to out's sizes (BLAS's
// beta): f(result, beta) fills result, which already holds self's values unless beta is 0 (then
// f passes 0 on and must not read result; NaN in self is ignored, as torch's). An out that is self
// (addmm_) holds them already and is written in place; one that overlaps self otherwise, or mat1 or
// mat2, gets a fresh result.
template <typename F>
void into_addmm_output(const Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                       const Scalar& beta, const F& f) {
  const Tensor bias = tcore::expand(self, out.sizes(), false);  // expand's error when self does not broadcast
  const bool reads_bias = is_floating(out.dtype()) ? beta.to_double() != 0.0 : beta.to_long() != 0;
  const bool in_place = out.storage().is_alias_of(self.storage()) && !partially_overlaps(out, self);
  into_output(out, out.dtype(), {mat1, mat2, in_place ? mat1 : self}, [&](const Tensor& result) {
    if (reads_bias && !(in_place && result.is_same(out))) copy_kernel(result, bias);
    f(result, reads_bias ? beta : Scalar(int64_t{0}));
  });
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
