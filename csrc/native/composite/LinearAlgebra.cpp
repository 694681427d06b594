// Linear algebra over mm and bmm: PyTorch's composites matmul (with broadcast batch dims), dot,
// mv, outer, addmm and linear; torch.linalg's matmul, vecdot, vector_norm and diagonal
// (python_module: linalg).
#include <algorithm>
#include <vector>

#include <tcore/ops/matmul_native.h>
#include <tcore/ops/dot_native.h>
#include <tcore/ops/mv_native.h>
#include <tcore/ops/outer_native.h>
#include <tcore/ops/addmm_native.h>
#include <tcore/ops/linear_native.h>
#include <tcore/ops/linalg_diagonal_native.h>
#include <tcore/ops/linalg_matmul_native.h>
#include <tcore/ops/linalg_vecdot_native.h>
#include <tcore/ops/linalg_vector_norm_native.h>
#include <tcore/ops/diagonal.h>
#include <tcore/ops/norm.h>
#include <tcore/ops/to.h>
#include <tcore/ops/add.h>
#include <tcore/ops/bmm.h>
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

#include "native/TensorUtils.h"

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
  return tcore::squeeze(tcore::mm(self, tcore::unsqueeze(vec, 1)), 1);
}

Tensor outer(const Tensor& self, const Tensor& vec2) {
  TCORE_CHECK_VALUE(self.dim() == 1 && vec2.dim() == 1, "outer: expected 1-D tensors, got ", self.dim(), "-D and ",
                    vec2.dim(), "-D");
  return tcore::mul(tcore::unsqueeze(self, 1), vec2);
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  const Tensor product = tcore::mm(mat1, mat2);
  const bool unit_alpha = alpha.is_floating_point() ? alpha.to_double() == 1.0 : alpha.to_long() == 1;
  const bool zero_beta = beta.is_floating_point() ? beta.to_double() == 0.0 : beta.to_long() == 0;
  const Tensor scaled = unit_alpha ? product : tcore::mul(product, alpha);
  return zero_beta ? tcore::add(scaled, tcore::mul(tcore::expand(self, scaled.sizes(), false), 0), 1)
                   : tcore::add(scaled, tcore::mul(self, beta), 1);
}

// PyTorch's matmul: 1-D operands get a dim that is removed afterwards; batch dims broadcast.
Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t a = self.dim(), b = other.dim();
  TCORE_CHECK_VALUE(a > 0 && b > 0, "both arguments to matmul need to be at least 1D, but they are ", a, "D and ", b,
                    "D");
  if (a == 1 && b == 1) return tcore::dot(self, other);
  if (a == 2 && b == 1) return tcore::mv(self, other);
  if (a == 1 && b == 2) return tcore::squeeze(tcore::mm(tcore::unsqueeze(self, 0), other), 0);
  if (a == 2 && b == 2) return tcore::mm(self, other);
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
  out.insert(out.end(), {n, m});
  const Tensor r = tcore::bmm(tcore::reshape(tcore::expand(x, xs, false), {nb, n, k}),
                              tcore::reshape(tcore::expand(y, ys, false), {nb, k, m}));
  Tensor result = tcore::reshape(r, out);
  if (a == 1) result = tcore::squeeze(result, -2);
  if (b == 1) result = tcore::squeeze(result, -1);
  return result;
}

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  const Tensor y = tcore::matmul(input, tcore::t(weight));
  return bias && bias->defined() ? tcore::add(y, *bias, 1) : y;
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
