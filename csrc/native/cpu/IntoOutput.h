#pragma once
// How a structured kernel's impl writes its output (sized and typed by the meta function), on any
// device: f(result) fills a contiguous tensor of out's sizes in the `compute` dtype, which is out
// itself when out is contiguous, of that dtype and shares no memory with any input, else a fresh
// tensor then copied (and cast) into out. Either way out's version goes up once.
#include <functional>
#include <initializer_list>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

using Inputs = std::initializer_list<std::reference_wrapper<const Tensor>>;

// The dtype an impl computes out's values in: out's own, float32 for a float16/bfloat16 out (its
// values are rounded once, on into_output's copy).
inline ScalarType compute_dtype(const Tensor& out) {
  return is_reduced_float(out.dtype()) ? ScalarType::Float : out.dtype();
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
  copy_kernel(out, tmp);  // bumps out's version
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
