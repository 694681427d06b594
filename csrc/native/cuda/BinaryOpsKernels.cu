// add, sub, mul and div on CUDA devices over the shared launcher (Loops.cuh), with the
// CPU kernels' rules: type promotion, broadcasting, out= and in-place. A Python number
// (a CPU 0-dim tensor) joins a device tensor as a scalar operand.
#include <tcore/ops/add_native.h>
#include <tcore/ops/div_native.h>
#include <tcore/ops/mul_native.h>
#include <tcore/ops/sub_native.h>

#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

template <typename T>
struct AddOp {
  T alpha;
  __device__ T operator()(T x, T y) const { return static_cast<T>(x + alpha * y); }
};
template <typename T>
struct MulOp {
  __device__ T operator()(T x, T y) const { return static_cast<T>(x * y); }
};
template <typename T>
struct DivOp {
  __device__ T operator()(T x, T y) const { return x / y; }
};

enum class Kind { Add, Sub, Mul, Div };

// The promoted dtype; true division of integers computes in the default float dtype.
ScalarType compute_type(const Tensor& a, const Tensor& b, Kind kind) {
  const ScalarType promoted = result_type({&a, &b});
  return kind == Kind::Div && !is_floating(promoted) ? default_float_dtype() : promoted;
}

Tensor binary_into(const Tensor& out, const Tensor& a, const Tensor& b, Kind kind, const Scalar& alpha,
                   const char* op) {
  const ScalarType compute = compute_type(a, b, kind);
  const cuda::BinaryTarget t = cuda::binary_target(out, a, b, compute, compute, op);
  const Tensor &x = t.x, &y = t.y, &target = t.target;
  dispatch_numeric(compute, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (kind) {
      case Kind::Add: cuda::launch_binary<T, T>(target, x, y, AddOp<T>{alpha.to<T>()}); break;
      case Kind::Sub: cuda::launch_binary<T, T>(target, x, y, AddOp<T>{static_cast<T>(-alpha.to<T>())}); break;
      case Kind::Mul: cuda::launch_binary<T, T>(target, x, y, MulOp<T>{}); break;
      case Kind::Div: cuda::launch_binary<T, T>(target, x, y, DivOp<T>{}); break;
    }
  });
  return t.finish(out, op);
}

Tensor functional(const Tensor& a, const Tensor& b, Kind kind, const Scalar& alpha, const char* op) {
  const Tensor out = empty_on(broadcast_shapes(a.sizes(), b.sizes()), compute_type(a, b, kind), cuda::device_of(a, b));
  return binary_into(out, a, b, kind, alpha, op);
}

Tensor inplace(const Tensor& self, const Tensor& other, Kind kind, const Scalar& alpha, const char* op) {
  const auto shape = broadcast_shapes(self.sizes(), other.sizes());
  TCORE_CHECK_VALUE(numel_of(shape) == self.numel() && shape.size() == self.sizes().size(), op,
                    ": output with shape ", shape_str(self.sizes()), " doesn't match the broadcast shape ",
                    shape_str(shape));
  return binary_into(self, self, other, kind, alpha, op);
}

}  // namespace

Tensor add_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return functional(self, other, Kind::Add, alpha, "add");
}
Tensor add_cuda_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return inplace(self, other, Kind::Add, alpha, "add_");
}
Tensor add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  return binary_into(out, self, other, Kind::Add, alpha, "add");
}
Tensor sub_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return functional(self, other, Kind::Sub, alpha, "sub");
}
Tensor sub_cuda_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return inplace(self, other, Kind::Sub, alpha, "sub_");
}
Tensor sub_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  return binary_into(out, self, other, Kind::Sub, alpha, "sub");
}
Tensor mul_cuda(const Tensor& self, const Tensor& other) { return functional(self, other, Kind::Mul, 1, "mul"); }
Tensor mul_cuda_(const Tensor& self, const Tensor& other) { return inplace(self, other, Kind::Mul, 1, "mul_"); }
Tensor mul_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_into(out, self, other, Kind::Mul, 1, "mul");
}
Tensor div_cuda(const Tensor& self, const Tensor& other) { return functional(self, other, Kind::Div, 1, "div"); }
Tensor div_cuda_(const Tensor& self, const Tensor& other) { return inplace(self, other, Kind::Div, 1, "div_"); }
Tensor div_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_into(out, self, other, Kind::Div, 1, "div");
}

}  // namespace tcore::native
