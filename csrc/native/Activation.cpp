// Meta functions of the structured nn activations leaky_relu, silu, softplus and elu
// (tcore/core/Structured.h): floating inputs only, the result in the input's dtype, as PyTorch's
// (an out= of another dtype is an error there too). The kernels are native/cpu/Activation.cpp and
// native/cuda/ActivationKernels.cu; their backwards compose other operators
// (native/composite/BackwardOps.cpp).
#include <tcore/ops/elu_native.h>
#include <tcore/ops/leaky_relu_native.h>
#include <tcore/ops/silu_native.h>
#include <tcore/ops/softplus_native.h>

#include "native/TensorUtils.h"

namespace tcore::meta {
namespace {

void activation_meta(MetaBase& m, const Tensor& self, const char* op) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "\"", op, "\" not implemented for '", self.dtype(), "'");
  const Tensor& given = m.maybe_get_output(0);
  TCORE_CHECK_TYPE(!given.defined() || given.dtype() == self.dtype(), "Found dtype ", given.dtype(), " but expected ",
                   self.dtype());
  m.set_output(0, self.sizes(), self.dtype(), native::output_strides(self.sizes(), {&self}));
}

}  // namespace

TCORE_META_FUNC(leaky_relu)(const Tensor& self, const Scalar&) { activation_meta(*this, self, "leaky_relu"); }
TCORE_META_FUNC(silu)(const Tensor& self) { activation_meta(*this, self, "silu"); }
TCORE_META_FUNC(softplus)(const Tensor& self, const Scalar&, const Scalar&) { activation_meta(*this, self, "softplus"); }
TCORE_META_FUNC(elu)(const Tensor& self, const Scalar&, const Scalar&, const Scalar&) {
  activation_meta(*this, self, "elu");
}

}  // namespace tcore::meta
