// eq, ne, lt, le, gt, ge (-> bool) and maximum, minimum (NaN wins) on CUDA devices, over the
// shared launcher, with the CPU kernels' rules (CompareOps.cpp, BinaryMath.cpp): operands
// compared in the promoted dtype, broadcasting, out=, a Python number as a scalar operand.
#include <type_traits>

#include <tcore/ops/eq_native.h>
#include <tcore/ops/ge_native.h>
#include <tcore/ops/gt_native.h>
#include <tcore/ops/le_native.h>
#include <tcore/ops/lt_native.h>
#include <tcore/ops/maximum_native.h>
#include <tcore/ops/minimum_native.h>
#include <tcore/ops/ne_native.h>

#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

enum class Kind { Eq, Ne, Lt, Le, Gt, Ge, Maximum, Minimum };

constexpr bool is_comparison(Kind k) { return k != Kind::Maximum && k != Kind::Minimum; }

template <typename T, Kind kind>
struct CompareOp {
  __device__ bool operator()(T x, T y) const {
    if constexpr (kind == Kind::Eq) return x == y;
    else if constexpr (kind == Kind::Ne) return x != y;
    else if constexpr (kind == Kind::Lt) return x < y;
    else if constexpr (kind == Kind::Le) return x <= y;
    else if constexpr (kind == Kind::Gt) return x > y;
    else return x >= y;
  }
};

template <typename T, Kind kind>
struct ExtremumOp {
  __device__ T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (x != x) return x;  // NaN propagates, as PyTorch's maximum/minimum
      if (y != y) return y;
    }
    if constexpr (kind == Kind::Maximum) return x > y ? x : y;
    else return x < y ? x : y;
  }
};

template <Kind kind>
Tensor compare_into(const Tensor& out, const Tensor& a, const Tensor& b, const char* op) {
  const ScalarType promoted = result_type({&a, &b});
  const ScalarType compute = opmath_type(promoted);
  const cuda::BinaryTarget t =
      cuda::binary_target(out, a, b, compute, is_comparison(kind) ? ScalarType::Bool : promoted, op);
  const Tensor &x = t.x, &y = t.y, &target = t.target;
  dispatch_dtype(compute, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_comparison(kind)) {
      cuda::launch_binary<bool, T>(target, x, y, CompareOp<T, kind>{});
    } else {
      cuda::with_store_type<T>(target.dtype(), [&](auto store) {
        cuda::launch_binary<typename decltype(store)::type, T>(target, x, y, ExtremumOp<T, kind>{});
      });
    }
  });
  return t.finish(out, op);
}

}  // namespace

TCORE_IMPL_FUNC(eq_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_into<Kind::Eq>(out, self, other, "eq");
}
TCORE_IMPL_FUNC(ne_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_into<Kind::Ne>(out, self, other, "ne");
}
TCORE_IMPL_FUNC(lt_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_into<Kind::Lt>(out, self, other, "lt");
}
TCORE_IMPL_FUNC(le_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_into<Kind::Le>(out, self, other, "le");
}
TCORE_IMPL_FUNC(gt_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_into<Kind::Gt>(out, self, other, "gt");
}
TCORE_IMPL_FUNC(ge_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_into<Kind::Ge>(out, self, other, "ge");
}
TCORE_IMPL_FUNC(maximum_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_into<Kind::Maximum>(out, self, other, "maximum");
}
TCORE_IMPL_FUNC(minimum_out_cuda)(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_into<Kind::Minimum>(out, self, other, "minimum");
}

}  // namespace tcore::native
