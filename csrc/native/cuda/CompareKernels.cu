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
  cuda::check_same_device(a, b, op);
  const Device device = a.device().is_cpu() ? b.device() : a.device();
  const ScalarType compute = result_type({&a, &b});
  const ScalarType result = is_comparison(kind) ? ScalarType::Bool : compute;
  TCORE_CHECK_TYPE(can_cast(result, out.dtype()), op, ": result type ", result,
                   " can't be cast to the desired output type ", out.dtype());
  TCORE_CHECK_VALUE(out.device() == device, op, ": the out= tensor is on ", out.device().str(),
                    " but the inputs are on ", device.str());
  const std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes());
  resize_output(out, shape);
  const Tensor x = cast(on_device(a, device), compute), y = cast(on_device(b, device), compute);
  const bool direct = out.dtype() == result && !partially_overlaps(out, x) && !partially_overlaps(out, y);
  const Tensor target = direct ? out : empty_on(shape, result, device);
  dispatch_dtype(compute, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_comparison(kind)) cuda::launch_binary<bool, T>(target, x, y, CompareOp<T, kind>{});
    else cuda::launch_binary<T, T>(target, x, y, ExtremumOp<T, kind>{});
  });
  if (!direct) write_result(out, target, op);
  out.bump_version();
  return out;
}

template <Kind kind>
Tensor compare(const Tensor& a, const Tensor& b, const char* op) {
  const ScalarType result = is_comparison(kind) ? ScalarType::Bool : result_type({&a, &b});
  return compare_into<kind>(empty_on(broadcast_shapes(a.sizes(), b.sizes()), result,
                                     a.device().is_cpu() ? b.device() : a.device()),
                            a, b, op);
}

}  // namespace

Tensor eq_cuda(const Tensor& self, const Tensor& other) { return compare<Kind::Eq>(self, other, "eq"); }
Tensor eq_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return compare_into<Kind::Eq>(out, self, other, "eq");
}
Tensor ne_cuda(const Tensor& self, const Tensor& other) { return compare<Kind::Ne>(self, other, "ne"); }
Tensor ne_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return compare_into<Kind::Ne>(out, self, other, "ne");
}
Tensor lt_cuda(const Tensor& self, const Tensor& other) { return compare<Kind::Lt>(self, other, "lt"); }
Tensor lt_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return compare_into<Kind::Lt>(out, self, other, "lt");
}
Tensor le_cuda(const Tensor& self, const Tensor& other) { return compare<Kind::Le>(self, other, "le"); }
Tensor le_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return compare_into<Kind::Le>(out, self, other, "le");
}
Tensor gt_cuda(const Tensor& self, const Tensor& other) { return compare<Kind::Gt>(self, other, "gt"); }
Tensor gt_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return compare_into<Kind::Gt>(out, self, other, "gt");
}
Tensor ge_cuda(const Tensor& self, const Tensor& other) { return compare<Kind::Ge>(self, other, "ge"); }
Tensor ge_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return compare_into<Kind::Ge>(out, self, other, "ge");
}
Tensor maximum_cuda(const Tensor& self, const Tensor& other) {
  return compare<Kind::Maximum>(self, other, "maximum");
}
Tensor maximum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return compare_into<Kind::Maximum>(out, self, other, "maximum");
}
Tensor minimum_cuda(const Tensor& self, const Tensor& other) {
  return compare<Kind::Minimum>(self, other, "minimum");
}
Tensor minimum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return compare_into<Kind::Minimum>(out, self, other, "minimum");
}

}  // namespace tcore::native
