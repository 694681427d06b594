// Meta functions of the structured unary operators (tcore/core/Structured.h): the result has
// self's sizes; FLOATING operators compute integer and bool inputs in the default float dtype
// (and may write into any out= dtype that can hold it), KEEPING ones keep self's dtype, refuse
// bool, and write only into an out= of that dtype (PyTorch's rules for both). The kernels are native/cpu/UnaryOps.cpp and
// native/cuda/UnaryOpsKernels.cu; the Meta backend runs these alone.
#include <tcore/ops/abs_native.h>
#include <tcore/ops/acos_native.h>
#include <tcore/ops/asin_native.h>
#include <tcore/ops/atan_native.h>
#include <tcore/ops/ceil_native.h>
#include <tcore/ops/cos_native.h>
#include <tcore/ops/cosh_native.h>
#include <tcore/ops/digamma_native.h>
#include <tcore/ops/erf_native.h>
#include <tcore/ops/exp2_native.h>
#include <tcore/ops/log10_native.h>
#include <tcore/ops/acosh_native.h>
#include <tcore/ops/asinh_native.h>
#include <tcore/ops/atanh_native.h>
#include <tcore/ops/erfc_native.h>
#include <tcore/ops/erfinv_native.h>
#include <tcore/ops/exp_native.h>
#include <tcore/ops/expm1_native.h>
#include <tcore/ops/floor_native.h>
#include <tcore/ops/lgamma_native.h>
#include <tcore/ops/log1p_native.h>
#include <tcore/ops/log2_native.h>
#include <tcore/ops/log_native.h>
#include <tcore/ops/neg_native.h>
#include <tcore/ops/polygamma_native.h>
#include <tcore/ops/i0_native.h>
#include <tcore/ops/special_i0e_native.h>
#include <tcore/ops/special_i1_native.h>
#include <tcore/ops/special_i1e_native.h>
#include <tcore/ops/special_ndtri_native.h>
#include <tcore/ops/special_log_ndtr_native.h>
#include <tcore/ops/special_erfcx_native.h>
#include <tcore/ops/reciprocal_native.h>
#include <tcore/ops/round_native.h>
#include <tcore/ops/rsqrt_native.h>
#include <tcore/ops/sigmoid_native.h>
#include <tcore/ops/sign_native.h>
#include <tcore/ops/sin_native.h>
#include <tcore/ops/sinh_native.h>
#include <tcore/ops/sqrt_native.h>
#include <tcore/ops/tan_native.h>
#include <tcore/ops/tanh_native.h>
#include <tcore/ops/trunc_native.h>

#include "native/TensorUtils.h"

namespace tcore::meta {

#define TCORE_FLOATING_UNARY_META(name)                                                            \
  TCORE_META_FUNC(name)(const Tensor& self) {                                                       \
    const ScalarType t = is_floating(self.dtype()) ? self.dtype() : default_float_dtype();          \
    set_output_castable(0, self.sizes(), t, #name, native::output_strides(self.sizes(), {&self}));    \
  }
#define TCORE_KEEPING_UNARY_META(name)                                                             \
  TCORE_META_FUNC(name)(const Tensor& self) {                                                       \
    TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, #name ": not implemented for 'bool' tensors"); \
    keeping_output(*this, self);                                                                    \
  }

namespace {
void keeping_output(MetaBase& m, const Tensor& self) {
  const Tensor& given = m.maybe_get_output(0);
  TCORE_CHECK_TYPE(!given.defined() || given.dtype() == self.dtype(), "Found dtype ", given.dtype(), " but expected ",
                   self.dtype());
  m.set_output(0, self.sizes(), self.dtype(), native::output_strides(self.sizes(), {&self}));
}
}  // namespace

TCORE_FLOATING_UNARY_META(exp)
TCORE_FLOATING_UNARY_META(log)
TCORE_FLOATING_UNARY_META(sqrt)
TCORE_FLOATING_UNARY_META(rsqrt)
TCORE_FLOATING_UNARY_META(sin)
TCORE_FLOATING_UNARY_META(cos)
TCORE_FLOATING_UNARY_META(tan)
TCORE_FLOATING_UNARY_META(tanh)
TCORE_FLOATING_UNARY_META(asin)
TCORE_FLOATING_UNARY_META(acos)
TCORE_FLOATING_UNARY_META(atan)
TCORE_FLOATING_UNARY_META(sinh)
TCORE_FLOATING_UNARY_META(cosh)
TCORE_FLOATING_UNARY_META(sigmoid)
TCORE_FLOATING_UNARY_META(exp2)
TCORE_FLOATING_UNARY_META(log10)
TCORE_FLOATING_UNARY_META(acosh)
TCORE_FLOATING_UNARY_META(asinh)
TCORE_FLOATING_UNARY_META(atanh)
TCORE_FLOATING_UNARY_META(erfc)
TCORE_FLOATING_UNARY_META(erfinv)
TCORE_FLOATING_UNARY_META(log2)
TCORE_FLOATING_UNARY_META(log1p)
TCORE_FLOATING_UNARY_META(expm1)
TCORE_FLOATING_UNARY_META(erf)
TCORE_FLOATING_UNARY_META(lgamma)
TCORE_FLOATING_UNARY_META(i0)
TCORE_FLOATING_UNARY_META(special_i0e)
TCORE_FLOATING_UNARY_META(special_i1)
TCORE_FLOATING_UNARY_META(special_i1e)
TCORE_FLOATING_UNARY_META(special_ndtri)
TCORE_FLOATING_UNARY_META(special_log_ndtr)
TCORE_FLOATING_UNARY_META(special_erfcx)
TCORE_FLOATING_UNARY_META(digamma)
TCORE_META_FUNC(polygamma)(int64_t n, const Tensor& self) {
  TCORE_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  const ScalarType t = is_floating(self.dtype()) ? self.dtype() : default_float_dtype();
  set_output_castable(0, self.sizes(), t, "polygamma", native::output_strides(self.sizes(), {&self}));
}
TCORE_FLOATING_UNARY_META(reciprocal)
TCORE_KEEPING_UNARY_META(abs)
TCORE_KEEPING_UNARY_META(sign)
TCORE_KEEPING_UNARY_META(floor)
TCORE_KEEPING_UNARY_META(ceil)
TCORE_KEEPING_UNARY_META(round)
TCORE_KEEPING_UNARY_META(trunc)

TCORE_META_FUNC(neg)(const Tensor& self) {
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool,
                   "Negation, the `-` operator, on a bool tensor is not supported. "
                   "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  keeping_output(*this, self);
}

#undef TCORE_FLOATING_UNARY_META
#undef TCORE_KEEPING_UNARY_META

}  // namespace tcore::meta
