// Linear algebra over mm, bmm and addmm: PyTorch's composites matmul (with broadcast batch dims),
// dot, mv, outer and linear; torch.linalg's matmul, vecdot, vector_norm and diagonal
// (python_module: linalg).
#include <algorithm>
#include <vector>

#include <tcore/ops/matmul_native.h>
#include <tcore/ops/dot_native.h>
#include <tcore/ops/mv_native.h>
#include <tcore/ops/outer_native.h>
#include <tcore/ops/linear_native.h>
#include <tcore/ops/linalg_diagonal_native.h>
#include <tcore/ops/linalg_matmul_native.h>
#include <tcore/ops/linalg_vecdot_native.h>
#include <tcore/ops/linalg_vector_norm_native.h>
#include <tcore/ops/diagonal.h>
#include <tcore/ops/norm.h>
#include <tcore/ops/to.h>
#include <tcore/ops/add.h>
#include <tcore/ops/addmm.h>
#include <tcore/ops/_unsafe_view.h>
#include <tcore/ops/bmm.h>
#include <tcore/ops/contiguous.h>
#include <tcore/ops/dot.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/matmul.h>
#include <tcore/ops/mm.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/mv.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/t.h>
#include <tcore/ops/transpose.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/view.h>

#include "native/TensorUtils.h"
#include "tcore/core/Dispatch.h"  // detail::has_fw_grad

namespace tcore::native {

Tensor dot(const Tensor& self, const Tensor& tensor) {
  TCORE_CHECK_VALUE(self.dim() == 1 && tensor.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
                    tensor.dim(), "D tensors");
  TCORE_CHECK_VALUE(self.numel() == tensor.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
                    "] and src [", tensor.numel(), "] to have the same number of elements, but got ", self.numel(),
                    " and ", tensor.numel(), " elements respectively");
  TCORE_CHECK_TYPE(self.dtype() == tensor.dtype(), "dot : expected both vectors to have same dtype, but found ",
                   self.dtype(), " and ", tensor.dtype());
  return tcore::sum(tcore::mul(self, tensor), std::optional<ScalarType>());
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  TCORE_CHECK_VALUE(self.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got ", self.dim(), ", ",
                    vec.dim());
  return tcore::_unsafe_view(tcore::mm(self, tcore::unsqueeze(vec, 1)), {self.sizes()[0]});  // not a view, as torch's
}

Tensor outer(const Tensor& self, const Tensor& vec2) {
  TCORE_CHECK_VALUE(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  TCORE_CHECK_VALUE(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return tcore::mul(tcore::unsqueeze(self, 1), vec2);
}

namespace {

// torch's should_fold: whether the operand of more dims (>= 3, the other a vector or a matrix) is
// folded into one matrix, so one mm or mv does the work of a bmm: when the smaller operand wants a
// gradient (its backward is then one product, not a batch of them summed), else when the fold is a
// view (the batch dims evenly strided) and needs no transposed copy of the result.
bool should_fold(const Tensor& a, const Tensor& b) {
  const bool a_larger = a.dim() >= b.dim();
  const Tensor big = a_larger ? a : tcore::transpose(b, -2, -1);
  const int64_t small_dim = a_larger ? b.dim() : a.dim();
  if (big.dim() < 3 || small_dim > 2) return false;
  if ((a_larger ? b : a).requires_grad()) return true;
  if (a.dim() == 2) return false;
  if (big.numel() == 0) return true;
  for (int64_t i = 0; i + 2 < big.dim(); ++i)
    if (big.strides()[i] != big.strides()[i + 1] * big.sizes()[i + 1]) return false;
  return true;
}

}  // namespace

// PyTorch's matmul: 1-D operands get a dim that is removed afterwards; batch dims broadcast; a
// batch against a matrix or vector folded into one mm/mv where should_fold says so, else one bmm.
// Results are never views (_unsafe_view), as torch's.
Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t a = self.dim(), b = other.dim();
  TCORE_CHECK_VALUE(a > 0 && b > 0, "both arguments to matmul need to be at least 1D, but they are ", a, "D and ", b,
                    "D");
  if (a == 1 && b == 1) return tcore::dot(self, other);
  if (a == 2 && b == 1) return tcore::mv(self, other);
  if (a == 1 && b == 2) return tcore::_unsafe_view(tcore::mm(tcore::unsqueeze(self, 0), other), {other.sizes()[1]});
  if (a == 2 && b == 2) return tcore::mm(self, other);
  if (should_fold(self, other)) {
    const bool transpose = b > a;  // (vector or matrix) @ batch: the batch's transpose folded
    const Tensor t1 = transpose ? tcore::transpose(other, -2, -1) : self;
    const Tensor t2 = !transpose ? other : a == 2 ? tcore::t(self) : self;
    std::vector<int64_t> shape(t1.sizes().begin(), t1.sizes().end() - 1);
    const Tensor folded = tcore::reshape(t1, {numel_of(shape), t1.sizes()[t1.dim() - 1]});  // numel_of: 0 too
    if (t2.dim() == 1) return tcore::_unsafe_view(tcore::mv(folded, t2), shape);
    shape.push_back(t2.sizes()[1]);
    const Tensor output = tcore::_unsafe_view(tcore::mm(folded, t2), shape);
    return transpose ? tcore::contiguous(tcore::transpose(output, -2, -1)) : output;
  }
  // batched: (..., n, k) @ (..., k, m) with broadcast batch dims
  const Tensor x = a == 1 ? tcore::unsqueeze(self, 0) : self;
  const Tensor y = b == 1 ? tcore::unsqueeze(other, 1) : other;
  const std::vector<int64_t> xb(x.sizes().begin(), x.sizes().end() - 2), yb(y.sizes().begin(), y.sizes().end() - 2);
  const std::vector<int64_t> batch = broadcast_shapes(xb, yb);
  const int64_t n = x.sizes()[x.dim() - 2], k = x.sizes()[x.dim() - 1], m = y.sizes()[y.dim() - 1];
  TCORE_CHECK_VALUE(y.sizes()[y.dim() - 2] == k, "mat1 and mat2 shapes cannot be multiplied (", n, "x", k, " and ",
                    y.sizes()[y.dim() - 2], "x", m, ")");
  const int64_t nb = numel_of(batch);
  std::vector<int64_t> xs = batch, ys = batch, out = batch;
  xs.insert(xs.end(), {n, k});
  ys.insert(ys.end(), {k, m});
  if (a > 1) out.push_back(n);
  if (b > 1) out.push_back(m);
  return tcore::_unsafe_view(tcore::bmm(tcore::reshape(tcore::expand(x, xs, false), {nb, n, k}),
                                        tcore::reshape(tcore::expand(y, ys, false), {nb, k, m})),
                             out);
}

// torch's: a 2-D input with a bias is one addmm (the bias added before the one rounding of
// float16/bfloat16); a contiguous input of other dims whose (contiguous) bias is one value per
// output feature likewise, flattened to 2-D and the result viewed back; otherwise matmul, then the bias added.
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  TCORE_CHECK_VALUE(input.dim() != 0 && weight.dim() != 0, "both arguments to linear need to be at least 1D, but they are ",
                    input.dim(), "D and ", weight.dim(), "D");
  if (!bias || !bias->defined()) return tcore::matmul(input, tcore::t(weight));
  if (input.dim() == 2) return tcore::addmm(*bias, input, tcore::t(weight));
  const IntArrayRef b = bias->sizes();
  const bool per_feature = !b.empty() && std::all_of(b.begin(), b.end() - 1, [](int64_t s) { return s == 1; });
  if (input.is_contiguous() && bias->is_contiguous() && per_feature) {
    std::vector<int64_t> sizes(input.sizes().begin(), input.sizes().end() - 1);  // rows: their product (0 too)
    const Tensor flat = tcore::reshape(input, {numel_of(sizes), input.sizes()[input.dim() - 1]});
    const Tensor result = tcore::addmm(*bias, flat, tcore::t(weight));
    sizes.push_back(result.sizes()[1]);
    return tcore::view(result, sizes);
  }
  const Tensor output = tcore::matmul(input, tcore::t(weight));
  // in place, as torch's (its result stays a view where matmul's is one), unless the bias carries
  // a tangent the output has none for
  return detail::has_fw_grad(*bias) ? tcore::add(output, *bias, 1) : tcore::add_(output, *bias, 1);
}

// ------------------------------------------------------------------ torch.linalg
Tensor linalg_matmul(const Tensor& self, const Tensor& other) { return tcore::matmul(self, other); }

Tensor linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  TCORE_CHECK_TYPE(x.dtype() == y.dtype(), "linalg.vecdot: Expected x and y to have the same dtype, but found x of type ",
                   to_string(x.dtype()), " and y of type ", to_string(y.dtype()), " instead");
  const std::vector<int64_t> dims{dim};
  return tcore::sum(tcore::mul(x, y), IntArrayRef(dims), false);  // real dtypes: no conjugate
}

// the input cast to dtype first, as torch's does; dim=None reduces every dim
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const Tensor x = dtype && *dtype != self.dtype() ? tcore::to(self, *dtype) : self;
  std::vector<int64_t> dims;
  if (dim) dims = dim->vec();
  return tcore::norm(x, std::optional<Scalar>(ord), dims, keepdim);
}

Tensor linalg_diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  return tcore::diagonal(A, offset, dim1, dim2);
}

}  // namespace tcore::native
