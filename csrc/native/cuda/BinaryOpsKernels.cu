// add, sub, mul and div on CUDA devices over the shared launcher (Loops.cuh): the impls of the
// structured out= kernels (the functional and in-place forms are generated from them). A Python number
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
  const ScalarType result = compute_type(a, b, kind);
  const ScalarType compute = opmath_type(result);
  const cuda::BinaryTarget t = cuda::binary_target(out, a, b, compute, result, op);
  const Tensor &x = t.x, &y = t.y, &target = t.target;
  dispatch_dtype(compute, op, [&](auto tag) {  // bool: add is or, mul is and (sub of bools fails in the meta function)
    using T = typename decltype(tag)::type;
    cuda::with_store_type<T>(target.dtype(), [&](auto store) {
      using S = typename decltype(store)::type;
      switch (kind) {
        case Kind::Add: cuda::launch_binary<S, T>(target, x, y, AddOp<T>{alpha.to<T>()}); break;
        case Kind::Sub: cuda::launch_binary<S, T>(target, x, y, AddOp<T>{negated(alpha).to<T>()}); break;
        case Kind::Mul: cuda::launch_binary<S, T>(target, x, y, MulOp<T>{}); break;
        case Kind::Div: cuda::launch_binary<S, T>(target, x, y, DivOp<T>{}); break;
      }
    });
  });
  return t.finish(out, op);
}

}  // namespace

// The structured operators' impls (their meta functions: native/BinaryOps.cpp).
TCORE_IMPL_FUNC(add_out_cuda)(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  binary_into(out, self, other, Kind::Add, alpha, "add");
}
TCORE_IMPL_FUNC(sub_out_cuda)(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  binary_into(out, self, other, Kind::Sub, alpha, "sub");
}
TCORE_IMPL_FUNC(mul_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_into(out, self, other, Kind::Mul, 1, "mul");
}
TCORE_IMPL_FUNC(div_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_into(out, self, other, Kind::Div, 1, "div");
}

}  // namespace tcore::native
