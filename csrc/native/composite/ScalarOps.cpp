// The Scalar overloads: the number becomes a wrapped 0-dim tensor (so it takes
// part in type promotion as a Python number) and the Tensor overload runs.
#include <tcore/ops/add.h>
#include <tcore/ops/add_native.h>
#include <tcore/ops/div.h>
#include <tcore/ops/div_native.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/mul_native.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sub_native.h>

namespace tcore::native {

Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::add(self, wrapped_scalar_tensor(other), alpha);
}
Tensor add_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::add_(self, wrapped_scalar_tensor(other), alpha);
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::sub(self, wrapped_scalar_tensor(other), alpha);
}
Tensor sub_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::sub_(self, wrapped_scalar_tensor(other), alpha);
}
Tensor mul(const Tensor& self, const Scalar& other) { return tcore::mul(self, wrapped_scalar_tensor(other)); }
Tensor mul_(const Tensor& self, const Scalar& other) { return tcore::mul_(self, wrapped_scalar_tensor(other)); }
Tensor div(const Tensor& self, const Scalar& other) { return tcore::div(self, wrapped_scalar_tensor(other)); }
Tensor div_(const Tensor& self, const Scalar& other) { return tcore::div_(self, wrapped_scalar_tensor(other)); }

}  // namespace tcore::native
