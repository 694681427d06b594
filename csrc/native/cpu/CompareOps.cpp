// Comparisons and logical operators: compared in the promoted dtype (PyTorch's result_type),
// the result is bool.

#include <tcore/ops/eq_native.h>
#include <tcore/ops/ge_native.h>
#include <tcore/ops/gt_native.h>
#include <tcore/ops/le_native.h>
#include <tcore/ops/logical_and_native.h>
#include <tcore/ops/logical_not_native.h>
#include <tcore/ops/logical_or_native.h>
#include <tcore/ops/logical_xor_native.h>
#include <tcore/ops/lt_native.h>
#include <tcore/ops/ne_native.h>

#include "native/cpu/Binary.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
using namespace binary;
namespace {

TCORE_BINARY_FN(eq_fn, x == y)
TCORE_BINARY_FN(ne_fn, x != y)
TCORE_BINARY_FN(lt_fn, x < y)
TCORE_BINARY_FN(le_fn, x <= y)
TCORE_BINARY_FN(gt_fn, x > y)
TCORE_BINARY_FN(ge_fn, x >= y)
TCORE_BINARY_FN(logical_and_fn, static_cast<bool>(x) && static_cast<bool>(y))
TCORE_BINARY_FN(logical_or_fn, static_cast<bool>(x) || static_cast<bool>(y))
TCORE_BINARY_FN(logical_xor_fn, static_cast<bool>(x) != static_cast<bool>(y))
#undef TCORE_BINARY_FN

}  // namespace

// ------------------------------------------------------------------ comparisons -> bool
// The impls of the structured out= kernels (meta functions: native/CompareOps.cpp).
TCORE_IMPL_FUNC(eq_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "eq", eq_fn());
}
TCORE_IMPL_FUNC(ne_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "ne", ne_fn());
}
TCORE_IMPL_FUNC(lt_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "lt", lt_fn());
}
TCORE_IMPL_FUNC(le_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "le", le_fn());
}
TCORE_IMPL_FUNC(gt_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "gt", gt_fn());
}
TCORE_IMPL_FUNC(ge_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "ge", ge_fn());
}

// ------------------------------------------------------------------ logical -> bool
Tensor logical_and(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "logical_and", logical_and_fn());
}
Tensor logical_and_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "logical_and",
                                    logical_and_fn());
}
Tensor logical_or(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "logical_or", logical_or_fn());
}
Tensor logical_or_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "logical_or",
                                    logical_or_fn());
}
Tensor logical_xor(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "logical_xor", logical_xor_fn());
}
Tensor logical_xor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "logical_xor",
                                    logical_xor_fn());
}
Tensor logical_not_out(const Tensor& self, const Tensor& out) {
  resize_elementwise_output(out, self.sizes(), {&self});
  const Tensor x = cast(self, ScalarType::Bool);
  const bool direct = out.dtype() == ScalarType::Bool && !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_output(self.sizes(), ScalarType::Bool, {&out});
  unary_loop<bool, bool>(target, x, [](bool v) { return !v; });
  if (!direct) write_result(out, target, "logical_not");
  out.bump_version();
  return out;
}
Tensor logical_not(const Tensor& self) {
  return logical_not_out(self, empty_output(self.sizes(), ScalarType::Bool, {&self}));
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
