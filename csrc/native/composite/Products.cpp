// PyTorch's composites over mm, bmm, addmm and matmul: addmv, addr, baddbmm, addbmm (beta * self +
// alpha * a product, self broadcast to the product's shape and ignored where beta is 0; their
// in-place forms), ger, inner, vdot, chain_matmul and linalg.multi_dot (the cheapest order of the
// products), matrix_power, linalg.cross and cross, diag_embed. torch's checks and messages;
// autograd through the operators they call.
#include <cstdint>
#include <functional>
#include <string>
#include <limits>
#include <optional>
#include <vector>

#include <tcore/ops/add.h>
#include <tcore/ops/addbmm_native.h>
#include <tcore/ops/addmm.h>
#include <tcore/ops/addmv_native.h>
#include <tcore/ops/addr_native.h>
#include <tcore/ops/baddbmm_native.h>
#include <tcore/ops/bmm.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/chain_matmul_native.h>
#include <tcore/ops/clone.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/cross_native.h>
#include <tcore/ops/diag_embed_native.h>
#include <tcore/ops/diagonal_scatter.h>
#include <tcore/ops/dot.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/eye.h>
#include <tcore/ops/ger_native.h>
#include <tcore/ops/inner_native.h>
#include <tcore/ops/linalg_cross.h>
#include <tcore/ops/linalg_cross_native.h>
#include <tcore/ops/linalg_inv.h>
#include <tcore/ops/linalg_matrix_power.h>
#include <tcore/ops/linalg_matrix_power_native.h>
#include <tcore/ops/linalg_multi_dot.h>
#include <tcore/ops/linalg_multi_dot_native.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/logical_or.h>
#include <tcore/ops/matmul.h>
#include <tcore/ops/matrix_power_native.h>
#include <tcore/ops/mm.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/outer.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/tensordot.h>
#include <tcore/ops/transpose.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/to.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/where.h>
#include <tcore/ops/vdot_native.h>
#include <tcore/ops/zeros.h>
#include <tcore/ops/_unsafe_view.h>

#include "native/LinearAlgebraChecks.h"
#include "native/TensorUtils.h"

namespace tcore::native {

namespace {
std::string sizes_x(IntArrayRef sizes) {
  std::string s;
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? "x" : "") + std::to_string(sizes[i]);
  return s;
}
bool is_zero(const Scalar& s) { return s.to<double>() == 0.0; }
bool is_one(const Scalar& s) { return s.to<double>() == 1.0; }

// beta * self + alpha * product, self expanded to the product's shape (expand's error where it
// cannot be); where beta is 0 self is not read (its NaNs ignored) but still gets its gradient of
// zeros, as torch's (where picks the product everywhere)
Tensor scaled_sum(const Tensor& self, const Tensor& product, const Scalar& beta, const Scalar& alpha) {
  const Tensor expanded = tcore::expand(self, product.sizes(), false);
  if (!is_zero(beta)) return tcore::add(is_one(beta) ? expanded : tcore::mul(expanded, beta), product, alpha);
  const Tensor scaled = is_one(alpha) ? product : tcore::mul(product, alpha);
  if (!expanded.requires_grad()) return scaled;
  return tcore::where(tcore::ones({}, ScalarType::Bool, std::nullopt, self.device()), scaled, expanded);
}
Tensor in_dtype(const Tensor& t, ScalarType dtype) {  // (differentiable)
  return t.dtype() == dtype ? t : tcore::to(t, dtype, false, false, std::nullopt);
}
}  // namespace

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  TCORE_CHECK_VALUE(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1, "vector + matrix @ vector expected, got ",
                    self.dim(), ", ", mat.dim(), ", ", vec.dim());
  TCORE_CHECK_VALUE(mat.sizes()[1] == vec.sizes()[0] && (self.numel() == 1 || self.sizes()[0] == mat.sizes()[0]),
                    "size mismatch, got input (", sizes_x(self.sizes()), "), mat (", sizes_x(mat.sizes()), "), vec (",
                    sizes_x(vec.sizes()), ")");
  TCORE_CHECK_TYPE(self.dtype() == mat.dtype() && mat.dtype() == vec.dtype(),
                   "addmv input tensors must have the same dtype, but got ", self.dtype(), ", ", mat.dtype(), ", and ",
                   vec.dtype());
  const int64_t n = mat.sizes()[0];
  const Tensor column = tcore::unsqueeze(tcore::expand(self, {n}, false), 1);
  return tcore::_unsafe_view(tcore::addmm(column, mat, tcore::unsqueeze(vec, 1), beta, alpha), {n});
}

Tensor addmv_(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  return tcore::copy_(self, addmv(self, mat, vec, beta, alpha));
}

// bool: (beta and self) or (alpha and vec1 vec2^T), as torch's; else addmm over a column and a row,
// the dtypes promoted
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  TCORE_CHECK_VALUE(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  TCORE_CHECK_VALUE(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  const ScalarType t = result_type({&self, &vec1, &vec2});
  const std::vector<int64_t> shape = {vec1.sizes()[0], vec2.sizes()[0]};
  if (t == ScalarType::Bool) {
    Tensor product = tcore::logical_and(tcore::unsqueeze(vec1, 1), vec2);
    if (alpha.to<double>() == 0) product = tcore::zeros(shape, ScalarType::Bool, std::nullopt, vec1.device());
    if (beta.to<double>() == 0) return product;
    return tcore::logical_or(tcore::expand(self, shape, false), product);
  }
  if (!is_floating(t)) {
    TCORE_CHECK_VALUE(!beta.is_floating_point(), "For integral input tensors, argument beta must not be a floating point number.");
    TCORE_CHECK_VALUE(!alpha.is_floating_point(), "For integral input tensors, argument alpha must not be a floating point number.");
  }
  const Tensor column = tcore::unsqueeze(in_dtype(vec1, t), 1), row = tcore::unsqueeze(in_dtype(vec2, t), 0);
  return tcore::addmm(tcore::expand(in_dtype(self, t), shape, false), column, row, beta, alpha);
}

Tensor addr_(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  return tcore::copy_(self, addr(self, vec1, vec2, beta, alpha));
}

Tensor ger(const Tensor& self, const Tensor& vec2) {
  warn("torch.ger is deprecated and will be removed in a future PyTorch release. Use torch.outer instead.");
  return tcore::outer(self, vec2);
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  TCORE_CHECK_TYPE(self.dtype() == batch1.dtype() && batch1.dtype() == batch2.dtype(),
                   "Input dtypes must be the same, got: input ", self.dtype(), ", batch1: ", batch1.dtype(),
                   ", batch2: ", batch2.dtype());
  return scaled_sum(self, tcore::bmm(batch1, batch2), beta, alpha);
}

Tensor baddbmm_(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                const Scalar& alpha) {
  return tcore::copy_(self, baddbmm(self, batch1, batch2, beta, alpha));
}

// the sum of the batch's products as one addmm: [batch1_0 ... batch1_b-1] (n x b k) times the
// stacked batch2 (b k x m)
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  TCORE_CHECK_VALUE(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TCORE_CHECK_VALUE(batch2.dim() == 3, "batch2 must be a 3D tensor");
  const int64_t b = batch1.sizes()[0], n = batch1.sizes()[1], k = batch1.sizes()[2], m = batch2.sizes()[2];
  TCORE_CHECK_VALUE(b == batch2.sizes()[0], "batch1 and batch2 must have same number of batches, got ", b, " and ",
                    batch2.sizes()[0]);
  TCORE_CHECK_VALUE(k == batch2.sizes()[1], "Incompatible matrix sizes for bmm (", n, "x", k, " and ",
                    batch2.sizes()[1], "x", m, ")");
  const Tensor left = tcore::reshape(tcore::transpose(batch1, 0, 1), {n, b * k});
  const Tensor right = tcore::reshape(batch2, {b * k, m});
  return tcore::addmm(tcore::expand(self, {n, m}, false), left, right, beta, alpha);
}

Tensor addbmm_(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return tcore::copy_(self, addbmm(self, batch1, batch2, beta, alpha));
}

// the products over the last dims: a scalar operand multiplies
Tensor inner(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return tcore::mul(self, other);
  const int64_t a = self.sizes()[self.dim() - 1], b = other.sizes()[other.dim() - 1];
  TCORE_CHECK_VALUE(a == b, "inner() the last dimension must match on both input tensors but got shapes ",
                    shape_str(self.sizes()), " and ", shape_str(other.sizes()));
  TCORE_CHECK_TYPE(self.dtype() == other.dtype(), "both inputs should have same dtype");
  return tcore::tensordot(self, other, {-1}, {-1});
}

Tensor vdot(const Tensor& self, const Tensor& other) { return tcore::dot(self, other); }  // (no complex dtypes)

namespace {
// The product of matrices (the first may be a row vector, the last a column one, each made 2-D) in
// the order that costs the fewest multiplications: the matrix-chain program (Cormen et al. 15.2);
// three of them by comparing the two orders, as torch's, so that results agree bit for bit.
Tensor chain(const std::vector<Tensor>& m) {
  const size_t n = m.size();
  if (n == 1) return tcore::clone(m[0], std::nullopt);
  if (n == 2) return tcore::mm(m[0], m[1]);
  std::vector<int64_t> p(n + 1);
  for (size_t i = 0; i < n; ++i) p[i] = m[i].sizes()[0];
  p[n] = m[n - 1].sizes()[1];
  if (n == 3) {
    const int64_t first = p[0] * p[1] * p[2] + p[0] * p[2] * p[3], last = p[1] * p[2] * p[3] + p[0] * p[1] * p[3];
    return first <= last ? tcore::mm(tcore::mm(m[0], m[1]), m[2]) : tcore::mm(m[0], tcore::mm(m[1], m[2]));
  }
  std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0)), split(n, std::vector<int64_t>(n, 0));
  for (size_t len = 1; len < n; ++len) {
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<int64_t>::max();
      for (size_t k = i; k < j; ++k) {
        const int64_t c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = static_cast<int64_t>(k);
        }
      }
    }
  }
  std::function<Tensor(size_t, size_t)> product = [&](size_t i, size_t j) -> Tensor {
    if (i == j) return m[i];
    const size_t k = static_cast<size_t>(split[i][j]);
    return tcore::mm(product(i, k), product(k + 1, j));
  };
  return product(0, n - 1);
}
}  // namespace

Tensor linalg_multi_dot(ArrayRef<Tensor> tensors) {
  const size_t n = tensors.size();
  TCORE_CHECK_VALUE(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  const int64_t first = tensors[0].dim(), last = tensors[n - 1].dim();
  TCORE_CHECK_VALUE(first == 1 || first == 2, "multi_dot(): the first tensor must be 1D or 2D but got ", first, "D");
  TCORE_CHECK_VALUE(last == 1 || last == 2, "multi_dot(): the last tensor must be 1D or 2D but got ", last, "D");
  for (size_t i = 1; i + 1 < n; ++i)
    TCORE_CHECK_VALUE(tensors[i].dim() == 2, "multi_dot(): tensor ", i, " must be 2D but got ", tensors[i].dim(), "D");
  for (size_t i = 1; i < n; ++i)
    TCORE_CHECK_TYPE(tensors[i].dtype() == tensors[0].dtype(), "multi_dot(): all tensors must have be the same dtype "
                     "but tensor 0 is ", tensors[0].dtype(), " and tensor ", i, " ", tensors[i].dtype());
  std::vector<Tensor> m(tensors.begin(), tensors.end());
  if (first == 1) m[0] = tcore::unsqueeze(m[0], 0);
  if (last == 1) m[n - 1] = tcore::unsqueeze(m[n - 1], 1);
  for (size_t i = 0; i + 1 < n; ++i)
    TCORE_CHECK_VALUE(m[i].sizes()[1] == m[i + 1].sizes()[0], "multi_dot(): tensors ", i, " and ", i + 1,
                      " with shapes ", shape_str(tensors[i].sizes()), " and ", shape_str(tensors[i + 1].sizes()),
                      " cannot be multiplied");
  Tensor r = chain(m);
  if (first == 1 && last == 1) return tcore::_unsafe_view(r, {});
  if (first == 1) return tcore::_unsafe_view(r, {r.sizes()[1]});
  if (last == 1) return tcore::_unsafe_view(r, {r.sizes()[0]});
  return r;
}

Tensor chain_matmul(ArrayRef<Tensor> matrices) {
  warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot "
       "instead, which accepts a list of two or more tensors rather than multiple parameters.");
  TCORE_CHECK_VALUE(!matrices.empty(), "chain_matmul(): Expected one or more matrices");
  if (matrices.size() == 1) {
    TCORE_CHECK_VALUE(matrices[0].dim() == 2, "chain_matmul(): Tensor dimension is ", matrices[0].dim(),
                      ", expected 2 instead.");
    return tcore::clone(matrices[0], std::nullopt);
  }
  for (size_t i = 0; i < matrices.size(); ++i)
    TCORE_CHECK_VALUE(matrices[i].dim() == 2, "Tensor dimension is ", matrices[i].dim(), ", expected 2 instead.");
  return tcore::linalg_multi_dot(matrices);
}

// A^n by squaring (torch's order of products, so that results agree bit for bit): n < 0 through
// the inverse, n == 0 the identity of each matrix of the batch, n == 1 a copy
Tensor linalg_matrix_power(const Tensor& self, int64_t n) {
  check_linalg_square(self, "linalg.matrix_power");
  if (n == 0) {
    const int64_t size = self.sizes()[self.dim() - 1];
    return tcore::clone(tcore::expand(tcore::eye(size, self.dtype(), std::nullopt, self.device(), std::nullopt),
                                      self.sizes(), false), std::nullopt);
  }
  Tensor a = self;
  if (n < 0) {
    a = tcore::linalg_inv(self);
    n = -n;
  }
  if (n == 1) return tcore::clone(a, MemoryFormat::Contiguous);
  if (n == 2) return tcore::matmul(a, a);
  if (n == 3) return tcore::matmul(tcore::matmul(a, a), a);
  Tensor z, result;
  while (n > 0) {
    const int64_t bit = n % 2;
    n /= 2;
    z = z.defined() ? tcore::matmul(z, z) : a;
    if (bit == 1) result = result.defined() ? tcore::matmul(result, z) : z;
  }
  return result;
}

Tensor matrix_power(const Tensor& self, int64_t n) { return tcore::linalg_matrix_power(self, n); }

// (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0) along dim, the operands broadcast
Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  TCORE_CHECK_VALUE(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  TCORE_CHECK_TYPE(self.dtype() == other.dtype(), "expected scalar type ", self.dtype(), " but found ", other.dtype());
  const int64_t d = wrap_dim(dim, self.dim(), /*allow_scalar=*/false);  // (a 0-D tensor: IndexError)
  TCORE_CHECK_VALUE(self.sizes()[d] == 3 && other.sizes()[d] == 3, "linalg.cross: inputs dimension ", dim,
                    " must have length 3. Got ", self.sizes()[d], " and ", other.sizes()[d]);
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), other.sizes());
  const Tensor a = tcore::expand(self, shape, false), b = tcore::expand(other, shape, false);
  const auto at = [d](const Tensor& t, int64_t i) { return tcore::narrow(t, d, i, 1); };
  const auto part = [&](int64_t i, int64_t j) { return tcore::sub(tcore::mul(at(a, i), at(b, j)), tcore::mul(at(a, j), at(b, i))); };
  return tcore::cat({part(1, 2), part(2, 0), part(0, 1)}, d);
}

// dim None: the first dim of size 3 of the broadcast shape (torch's deprecation warning)
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim) return tcore::linalg_cross(self, other, *dim);
  warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly or "
       "simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of linalg.cross in a "
       "future release.");
  TCORE_CHECK_VALUE(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), other.sizes());
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
    if (shape[i] == 3) return tcore::linalg_cross(self, other, i);
  TCORE_CHECK_VALUE(false, "no dimension of size 3 in input");
  return Tensor();
}

// a new dim pair (dim1, dim2) of size n + |offset| whose diagonal `offset` holds self's last dim
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, nd), d2 = wrap_dim(dim2, nd);
  TCORE_CHECK_VALUE(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t size = self.sizes()[self.dim() - 1] + (offset < 0 ? -offset : offset);
  std::vector<int64_t> shape;
  for (int64_t i = 0, j = 0; i < nd; ++i) shape.push_back(i == d1 || i == d2 ? size : self.sizes()[j++]);
  return tcore::diagonal_scatter(tcore::zeros(shape, self.dtype(), std::nullopt, self.device()), self, offset, d1, d2);
}

}  // namespace tcore::native
