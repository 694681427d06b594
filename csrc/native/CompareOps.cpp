// Meta functions of the structured comparisons (eq, ne, lt, le, gt, ge: a bool result, which
// any out= dtype can hold) and of maximum/minimum (the promoted dtype, castable into out=), as
// PyTorch's TensorIterator decides them. Kernels: native/cpu/CompareOps.cpp, BinaryMath.cpp and
// native/cuda/CompareKernels.cu.
#include <tcore/ops/eq_native.h>
#include <tcore/ops/ge_native.h>
#include <tcore/ops/gt_native.h>
#include <tcore/ops/le_native.h>
#include <tcore/ops/lt_native.h>
#include <tcore/ops/maximum_native.h>
#include <tcore/ops/minimum_native.h>
#include <tcore/ops/ne_native.h>

#include "native/TensorUtils.h"

namespace tcore::meta {
#define TCORE_COMPARISON_META(name)                                                                        \
  TCORE_META_FUNC2(name, Tensor)(const Tensor& self, const Tensor& other) {                                 \
    (void)native::result_type({&self, &other});                                                             \
    native::set_binary_output(*this, self, other, ScalarType::Bool, #name);                                         \
  }
TCORE_COMPARISON_META(eq)
TCORE_COMPARISON_META(ne)
TCORE_COMPARISON_META(lt)
TCORE_COMPARISON_META(le)
TCORE_COMPARISON_META(gt)
TCORE_COMPARISON_META(ge)
#undef TCORE_COMPARISON_META

TCORE_META_FUNC(maximum)(const Tensor& self, const Tensor& other) {
  native::set_binary_output(*this, self, other, native::result_type({&self, &other}), "maximum");
}
TCORE_META_FUNC(minimum)(const Tensor& self, const Tensor& other) {
  native::set_binary_output(*this, self, other, native::result_type({&self, &other}), "minimum");
}

}  // namespace tcore::meta
