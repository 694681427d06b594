// The in-place forms of the comparisons (eq_, ne_, gt_, ge_, lt_, le_) and of logical_and,
// logical_or, logical_xor and logical_not: the result (bool) written into self in self's own dtype,
// as torch's (a float self holds 0 and 1).
#include <tcore/ops/copy.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/eq_native.h>
#include <tcore/ops/ne.h>
#include <tcore/ops/ne_native.h>
#include <tcore/ops/gt.h>
#include <tcore/ops/gt_native.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/ge_native.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/lt_native.h>
#include <tcore/ops/le.h>
#include <tcore/ops/le_native.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/logical_and_native.h>
#include <tcore/ops/logical_or.h>
#include <tcore/ops/logical_or_native.h>
#include <tcore/ops/logical_xor.h>
#include <tcore/ops/logical_xor_native.h>
#include <tcore/ops/logical_not.h>
#include <tcore/ops/logical_not_native.h>

#include "native/TensorUtils.h"

namespace tcore::native {

Tensor eq_(const Tensor& self, const Scalar& other) {
  return tcore::copy_(self, tcore::eq(self, other));
}

Tensor eq_(const Tensor& self, const Tensor& other) {
  return tcore::copy_(self, tcore::eq(self, other));
}

Tensor ne_(const Tensor& self, const Scalar& other) {
  return tcore::copy_(self, tcore::ne(self, other));
}

Tensor ne_(const Tensor& self, const Tensor& other) {
  return tcore::copy_(self, tcore::ne(self, other));
}

Tensor gt_(const Tensor& self, const Scalar& other) {
  return tcore::copy_(self, tcore::gt(self, other));
}

Tensor gt_(const Tensor& self, const Tensor& other) {
  return tcore::copy_(self, tcore::gt(self, other));
}

Tensor ge_(const Tensor& self, const Scalar& other) {
  return tcore::copy_(self, tcore::ge(self, other));
}

Tensor ge_(const Tensor& self, const Tensor& other) {
  return tcore::copy_(self, tcore::ge(self, other));
}

Tensor lt_(const Tensor& self, const Scalar& other) {
  return tcore::copy_(self, tcore::lt(self, other));
}

Tensor lt_(const Tensor& self, const Tensor& other) {
  return tcore::copy_(self, tcore::lt(self, other));
}

Tensor le_(const Tensor& self, const Scalar& other) {
  return tcore::copy_(self, tcore::le(self, other));
}

Tensor le_(const Tensor& self, const Tensor& other) {
  return tcore::copy_(self, tcore::le(self, other));
}

Tensor logical_and_(const Tensor& self, const Tensor& other) {
  return tcore::copy_(self, tcore::logical_and(self, other));
}

Tensor logical_or_(const Tensor& self, const Tensor& other) {
  return tcore::copy_(self, tcore::logical_or(self, other));
}

Tensor logical_xor_(const Tensor& self, const Tensor& other) {
  return tcore::copy_(self, tcore::logical_xor(self, other));
}

Tensor logical_not_(const Tensor& self) {
  return tcore::copy_(self, tcore::logical_not(self));
}

}  // namespace tcore::native
