#pragma once
// Helpers the formulas of csrc/autograd/derivatives.yaml are written with. They are
// built from public operators only, so they are differentiable themselves
// (create_graph=True works through them) and run on every backend.
#include <array>
#include <initializer_list>
#include <limits>
#include <tuple>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "tcore/autograd/autograd.h"
#include "tcore/core/Macros.h"
#include "tcore/core/Reduction.h"

namespace tcore::autograd::manual {

// True when a backward formula is itself differentiated (create_graph, or a tangent on one of
// `ts`: forward over reverse): it must then be written in differentiable operators.
bool differentiated(std::initializer_list<const Tensor*> ts);

// The formula of an operator without a derivative (torch's): differentiating it raises
// "the derivative for '<op>' is not implemented."
Tensor not_implemented(const char* op);

// Zeros of `sizes` with like's dtype and device (PyTorch's grad.new_zeros(self.sym_sizes())): a
// formula that needs only an input's shape reads self.sizes(), and the input is not saved.
Tensor zeros_of(IntArrayRef sizes, const Tensor& like);

// grad * alpha, skipping the multiplication when alpha is 1.
Tensor maybe_multiply(const Tensor& grad, const Scalar& alpha);
// A scalar's complex conjugate: tcore's scalars are real (PyTorch's formulas write alpha.conj()).
inline Scalar conj(const Scalar& s) { return s; }
// -lambd in PyTorch's formulas (softshrink): as c10::Scalar's, an error on a bool.
inline Scalar operator-(const Scalar& s) {
  TCORE_CHECK(!s.is_bool(), "negation of a boolean scalar is not supported");
  if (s.is_integral()) return Scalar(static_cast<int64_t>(0ULL - static_cast<uint64_t>(s.to<int64_t>())));
  return Scalar(-s.to_double());
}
// A tensor's geometry, as PyTorch's formulas pass it (as_strided_backward(grad, TensorGeometry(self), ...)).
struct TensorGeometry {
  explicit TensorGeometry(const Tensor& t)
      : sizes(t.sizes().vec()), strides(t.strides().vec()), storage_offset(t.storage_offset()) {}
  std::vector<int64_t> sizes, strides;
  int64_t storage_offset;
};
// The gradient of a sum over `dim` (every dim when unset): grad broadcast back to `sizes`.
Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim);
Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim);
// PyTorch's spelling, which also passes the input's numel (implied by sizes)
inline Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, int64_t /*numel*/,
                            bool keepdim) {
  return mean_backward(grad, sizes, dim, keepdim);
}
// The gradient of as_strided(): the output's gradient added into the storage elements its
// elements address (several times where the view overlaps itself), read back with the
// input's geometry (an input that overlaps itself is not supported, as a clear error).
Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_offset, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset);
inline Tensor as_strided_backward(const Tensor& grad, const TensorGeometry& input, IntArrayRef size, IntArrayRef stride,
                                  std::optional<int64_t> storage_offset) {
  return as_strided_backward(grad, input.sizes, input.strides, input.storage_offset, size, stride, storage_offset);
}
// The gradient of split/split_with_sizes: the pieces' gradients joined along dim (zeros
// for the pieces that got none).
Tensor split_with_sizes_backward(const std::vector<Tensor>& grads, IntArrayRef split_sizes, int64_t dim,
                                 IntArrayRef sizes);
Tensor split_backward(const std::vector<Tensor>& grads, int64_t split_size, int64_t dim, IntArrayRef sizes);
// unbind's: the gradients stacked along dim, zeros for the outputs that got none
Tensor unbind_backward(const std::vector<Tensor>& grads, int64_t dim, IntArrayRef sizes);
// PyTorch's spellings, which also pass self's options (the pieces' gradients carry them)
template <typename Options>
Tensor split_backward(const std::vector<Tensor>& grads, int64_t split_size, int64_t dim, IntArrayRef sizes,
                      const Options& /*options*/) {
  return split_backward(grads, split_size, dim, sizes);
}
template <typename Options>
Tensor split_with_sizes_backward(const std::vector<Tensor>& grads, IntArrayRef split_sizes, int64_t dim,
                                 IntArrayRef sizes, const Options& /*options*/) {
  return split_with_sizes_backward(grads, split_sizes, dim, sizes);
}
// ----- forward-mode (jvp) helpers
// x summed over `dim` (every dim when unset or empty), keeping them when keepdim.
Tensor sum_over(const Tensor& x, OptionalIntArrayRef dim, bool keepdim);
// max.dim/min.dim: the tangent of the selected values.
Tensor value_selecting_reduction_jvp(const Tensor& self_t, int64_t dim, const Tensor& indices, bool keepdim);
// cumprod: sum_{i<=k} t_i prod_{j<=k, j!=i} x_j, exact with zeros in x.
Tensor cumprod_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, int64_t dim);  // PyTorch's order

// The gradient of view(): grad laid out as `sizes`.
Tensor view_backward(const Tensor& grad, IntArrayRef sizes);
// gather's: grad added into zeros of self's shape at index (in place: scatter_add of fresh zeros
// cloned them, a copy of self's size for nothing; cross_entropy's backward is one)
Tensor gather_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index);
// The gradient of expand(): grad summed over the expanded dims.
Tensor sum_to_size(const Tensor& grad, IntArrayRef sizes);
// The gradient of permute(): grad permuted back.
Tensor permute_backward(const Tensor& grad, IntArrayRef dims);
// The gradient of squeeze(dim): grad with that dim back when squeeze removed it.
Tensor unsqueeze_to(const Tensor& grad, int64_t dim, IntArrayRef sizes);
// The gradient of squeeze() (every size-1 dim): grad reshaped back.
Tensor unsqueeze_to(const Tensor& grad, IntArrayRef sizes);
// squeeze.dims's: the dims of `dim` that had size 1 put back
Tensor unsqueeze_to(const Tensor& grad, IntArrayRef dim, IntArrayRef sizes);
// amax/amin/max/min: grad shared evenly by the elements equal to the result.
Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim);
// var/std with a correction (default 1): 2 (x - mean) / (N - correction).
Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim);
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim);
// logsumexp: grad * exp(self - result).
Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim);
// cumsum: the reversed cumulative sum of grad.
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
// clamp: grad where min <= self <= max (a bound that is None does not limit).
Tensor hardtanh_backward(const Tensor& grad, const Tensor& self, const Scalar& min_val, const Scalar& max_val);
Tensor atan2_self_backward(const Tensor& grad, const Tensor& self, const Tensor& other);
Tensor atan2_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);
// clamp with tensor bounds (PyTorch's clamp.Tensor formulas; an undefined bound does not limit):
// self gets grad where min <= self <= max; min where self < min (and min < max), max where
// self > max or max < min (the upper bound wins a crossing); the tangent picks the same way.
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max);
std::tuple<Tensor, Tensor> clamp_backward_min_max(const Tensor& grad, const Tensor& self, const Tensor& min,
                                                  const Tensor& max, const std::array<bool, 2>& grad_input_mask);
Tensor clamp_jvp(const Tensor& self_p, const Tensor& self_t, const Tensor& min_p, const Tensor& min_t,
                 const Tensor& max_p, const Tensor& max_t);
// xlogy's tangent, torch's formula, the y term only where y's tangent is not zero (0 * x / y is NaN
// where y is 0 or x is NaN; torch's absent tangent is a zero tensor, which never makes one)
Tensor xlogy_jvp(const Tensor& self_p, const Tensor& self_t, const Tensor& other_p, const Tensor& other_t);
// softmax's (log_softmax's) input gradient from its result: result (grad - sum(grad result)) or
// grad - e^result sum(grad) along dim; the kernels, or differentiable operators when the backward is
// itself differentiated (create_graph, a tangent) or off the CPU.
Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim, bool log);
// A loss's elementwise values reduced as `reduction` says (0 none, 1 mean, 2 sum).
Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction);
// The nn activations' second derivatives (d/dself of their backward kernels, times grad), as torch's:
// gelu: grad * grad_output * gelu''(x), phi(x) (2 - x^2) or the tanh form's;
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate);
// silu: grad * grad_output * s (1 - s) (2 + x (1 - 2 s)), s = sigmoid(x);
Tensor silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self);
// softplus: grad * beta s (1 - s) where x * beta < threshold, s = sigmoid(x * beta) (s (1 - s) as
// sigmoid(z) sigmoid(-z): torch's 1 - s loses digits for large z);
Tensor softplus_double_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold);
// elu: where self_or_result < 0, grad * grad_output * input_scale (from the result) or
// elu_backward(grad * grad_output * input_scale, ...) (from the input), else 0.
Tensor elu_double_backward(const Tensor& grad, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result);
// _conv2d_im2col's gradients (those mask asks for): its backward kernel, or in grad mode (create_graph)
// the input's as col2im of grad times the weight, the weight's as grad times the input's patch
// matrix, through operators with derivatives of their own.
std::tuple<Tensor, Tensor> conv2d_im2col_backward(const Tensor& grad, const Tensor& self, const Tensor& weight,
                                                  IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                  int64_t groups, std::array<bool, 2> mask);
// special.i1's gradient grad (I0(x) - I1(x) / x), or i1e's (scaled) grad (I0e(x) - I1e(x) (sgn(x) +
// 1 / x)): 1/2 at x = 0 (|x| <= eps), where the quotient is 0 / 0, as torch's.
Tensor bessel_i1_backward(const Tensor& grad, const Tensor& self, const Tensor& result, bool scaled);
// _lstm_layer's gradients (of the input projection, hx, cx, w_hh, b_hh; those mask asks for):
// its backward kernel, or with create_graph or a tangent the steps recomputed and walked back in
// operators with derivatives of their own (RecurrentBackward.cpp).
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> lstm_layer_backward(
    const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_projection,
    const Tensor& hx, const Tensor& cx, const Tensor& w_hh, const std::optional<Tensor>& b_hh,
    const std::optional<Tensor>& valid, bool reverse, const Tensor& output, const Tensor& gates, const Tensor& cells,
    std::array<bool, 5> mask);
// The last two sizes of an (N, C, H, W) tensor (a pooling's output size).
inline std::vector<int64_t> spatial_sizes(const Tensor& t) { return {t.sizes()[2], t.sizes()[3]}; }
// d/dself of pow(self, exponent) for a number exponent: exponent * self^(exponent - 1), 0 when exponent is 0.
Tensor pow_scalar_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent);
// div with rounding_mode: the true-division gradient, or zero when the quotient is rounded.
Tensor div_mode_self_backward(const Tensor& grad, const Tensor& other, const std::optional<std::string>& rounding_mode);
Tensor div_mode_self_backward(const Tensor& grad, const Tensor& other, std::optional<std::string_view> rounding_mode);
Tensor div_mode_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                               std::optional<std::string_view> rounding_mode);
Tensor div_mode_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                               const std::optional<std::string>& rounding_mode);
// cat: each input's slice of grad (legacy 1-D empty inputs get an empty gradient).
std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes, int64_t dim);
// PyTorch's spelling: each input's slice in that input's dtype (cat promotes its inputs' dtypes)
std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes,
                                         const std::vector<ScalarType>& dtypes, int64_t dim);
inline std::vector<std::vector<int64_t>> to_args_sizes(ArrayRef<Tensor> tensors) { return sizes_of(tensors); }
std::vector<ScalarType> to_args_scalartypes(ArrayRef<Tensor> tensors);
// constant_pad_nd: grad cropped by the padding (a pad with the amounts negated).
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);
// Vector norms of order p over `dim` (every dim when empty); 0 where the norm is 0.
// dim empty: the norm of the whole tensor (also PyTorch's foreach formula, which passes no dim)
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& result,
                     IntArrayRef dim = {}, bool keepdim = false);
// embedding: rows of grad added into a (num_weights, D) zero tensor at the indices,
// skipping padding_idx and divided by each index's count with scale_grad_by_freq.
Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq);
// prod: each element's gradient is the product of the others (exclusive products from
// both sides, so zeros need no division).
Tensor prod_dim_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
// PyTorch's spelling of prod.dim_int's gradient
inline Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim) {
  return prod_dim_backward(grad, self, result, dim, keepdim);
}

// native_layer_norm: the gradients of input, weight and bias that `mask` asks for, from the
// saved mean and rstd: native_layer_norm_backward's kernel on the CPU, or differentiable operators
// with the statistics recomputed from input when the backward itself is differentiated
// (create_graph or a tangent: double backward and hvp see their dependence) or off the CPU.
std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& input,
                                                       IntArrayRef normalized_shape, const Tensor& mean,
                                                       const Tensor& rstd, const std::optional<Tensor>& weight,
                                                       double eps, std::array<bool, 3> mask);
// native_layer_norm's tangent: d((x - mean) * rstd) * weight + xhat * weight_t + bias_t.
// PyTorch's signature: the primals of the optional weight and bias are undefined when absent
Tensor layer_norm_jvp(const Tensor& input, const Tensor& input_t, const Tensor& weight, const Tensor& weight_t,
                      const Tensor& bias, const Tensor& bias_t, const Tensor& mean, const Tensor& rstd,
                      IntArrayRef normalized_shape);
// batch_norm (its three kernels): the gradients `mask` asks for, from the saved batch statistics
// (training) or the running ones; through native_batch_norm_backward, or in differentiable
// operators when the formula is itself differentiated (create_graph, forward over reverse).
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input,
                                                       const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& running_mean,
                                                       const std::optional<Tensor>& running_var,
                                                       const Tensor& save_mean, const Tensor& save_invstd,
                                                       bool training, double eps, std::array<bool, 3> mask);
// batch_norm's tangent: layer_norm's over every dim but the channels in training; outside it
// the statistics are constants, input_t * rstd * weight + xhat * weight_t + bias_t.
Tensor batch_norm_jvp(const Tensor& input, const Tensor& input_t, const Tensor& weight, const Tensor& weight_t,
                      const Tensor& bias_t, const Tensor& running_mean, const Tensor& running_var,
                      const Tensor& save_mean, const Tensor& save_invstd, bool training, double eps);

// copysign's gradient for self: grad * result / self, 0 where self is 0 (torch's).
Tensor copysign_tensor_self_backward(const Tensor& grad, const Tensor& self, const Tensor& result);

// scatter_reduce's gradients, torch's formulas: sum passes grad (src: gathered); mean divides it by
// each element's count; prod by the element (a factor that is the position's only zero gets the
// product of the others, one of several zeros gets 0); amax/amin share it evenly among the values
// equal to the result (self counted even when include_self=False, as torch's). include_self=False:
// self gets 0 where anything is scattered.
std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, std::string_view reduce,
                                                   bool include_self, const Tensor& result);
// Its tangent: sum and mean of the tangents, amax/amin's shared among the values equal to the result
// (self's only where it takes part, unlike the backward's count); prod's is not implemented (torch
// gives none).
Tensor scatter_reduce_jvp(const Tensor& self_p, const Tensor& self_t, int64_t dim, const Tensor& index,
                          const Tensor& src_p, const Tensor& src_t, std::string_view reduce, bool include_self,
                          const Tensor& result);

// torch.linalg (native/cpu/BatchLinearAlgebra.cpp), torch's formulas for real matrices:
// A X = B: B's gradient solve(A^T, grad), A's -gB X^T; X's tangent solve(A, B_t - A_t X).
std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& X, const Tensor& A, const Tensor& LU,
                                                 const Tensor& pivots, bool left,
                                                 const std::array<bool, 2>& grad_input_mask);
Tensor linalg_solve_jvp(const Tensor& A_t, const Tensor& B_t, const Tensor& X, const Tensor& LU, const Tensor& pivots,
                        bool left);
// triangular A X = B: B's gradient the solve with A^T (the other triangle), A's -gB X^T kept to
// the triangle the solve read (its diagonal too unless unitriangular); X's tangent
// solve(A, B_t - A_t X), A_t kept to that triangle.
std::tuple<Tensor, Tensor> solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& result,
                                                     bool upper, bool unitriangular,
                                                     const std::array<bool, 2>& grad_input_mask);
Tensor solve_triangular_jvp(const Tensor& A_p, const Tensor& A_t, const Tensor& B_t, const Tensor& result, bool upper,
                            bool unitriangular);
// det: grad det A^{-T} (the cofactors); at a singular matrix through its SVD, as torch's; its
// tangent det tr(A^{-1} A_t).
Tensor linalg_det_backward(const Tensor& grad, const Tensor& det, const Tensor& A, const Tensor& LU,
                           const Tensor& pivots);
Tensor linalg_det_jvp(const Tensor& A_p, const Tensor& A_t, const Tensor& det, const Tensor& LU,
                      const Tensor& pivots);
// slogdet: log|det|'s gradient grad A^{-T}, its tangent tr(A^{-1} A_t); sign has none.
Tensor slogdet_backward(const Tensor& grad_logabsdet, const Tensor& A, const Tensor& LU, const Tensor& pivots);
Tensor slogdet_jvp(const Tensor& A_t, const Tensor& LU, const Tensor& pivots);
// cholesky, L lower (upper: L^T): A's gradient L^{-T} Phi(L^T gL) L^{-1} made symmetric, Phi
// the lower triangle with its diagonal halved; L's tangent L Phi(L^{-1} A_t L^{-T}).
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L);
Tensor cholesky_jvp(const Tensor& A_t, const Tensor& L, bool upper);
// eigh, A = V diag(L) V^T: A's gradient V (diag(gL) + skew(V^T gV) / E) V^T with E_ij = L_j - L_i
// (the eigenvectors' part projected onto the skew-symmetric matrices, as torch's); the tangents
// diag(V^T A_t V) and V ((V^T A_t V) / E, its diagonal 0).
Tensor linalg_eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V);
// svd, A = U diag(S) Vh (the reduced factors; full ones narrowed to them, as torch's): torch's
// svd_backward for real matrices, skew(X) = X - X^T and E_jk = S_k^2 - S_j^2:
// U ((skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS)) Vh, plus the parts of gU and gV outside
// the spans of U and V where A is not square.
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U, const Tensor& S,
                    const Tensor& Vh, bool full_matrices);
// qr, A = Q R (torch's linalg_qr_backward and linalg_qr_jvp for real matrices): mode "r", and
// "complete" with more rows than columns, are not differentiable (torch's errors)
Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, std::string_view mode);
std::tuple<Tensor, Tensor> linalg_qr_jvp(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode);
Tensor linalg_qr_jvp_Q(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode);
Tensor linalg_qr_jvp_R(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode);
// pinv, X = A^+ (torch's pinv_backward and pinv_jvp)
Tensor pinv_backward(const Tensor& grad, const Tensor& X, const Tensor& A);
Tensor pinv_jvp(const Tensor& A, const Tensor& X, const Tensor& A_t);
// LU (torch's lu_factor_ex_backward, linalg_lu_backward, lu_factor_ex_jvp, linalg_lu_solve_LU,
// linalg_lu_solve_jvp for real matrices): A = P L U of any shape; lu_solve's X = op(A)^-1 B
Tensor linalg_lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& pivots, const Tensor& L, const Tensor& U);
Tensor lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots);
Tensor lu_factor_ex_jvp(const Tensor& A_t, const Tensor& LU, const Tensor& pivots);
Tensor linalg_lu_solve_LU(const Tensor& grad, const Tensor& LU, const Tensor& pivots, const Tensor& X, bool left,
                          bool adjoint);
Tensor linalg_lu_solve_jvp(const Tensor& X, const Tensor& LU, const Tensor& pivots, const Tensor& LU_t,
                           const Tensor& B_t, bool left, bool adjoint);
// lstsq (torch's linalg_lstsq_backward and its tangents; the residuals' too)
std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& gX, const Tensor& gL, const Tensor& A, const Tensor& B,
                                                 const Tensor& X, const std::array<bool, 2>& grad_input_mask);
Tensor linalg_lstsq_solution_jvp(const Tensor& A, const Tensor& B, const Tensor& dA, const Tensor& dB);
Tensor linalg_lstsq_residuals_jvp(const Tensor& A, const Tensor& B, const Tensor& dA, const Tensor& dB, const Tensor& X,
                                  const Tensor& L);
Tensor linalg_eigh_jvp_values(const Tensor& A_t, const Tensor& V);
Tensor linalg_eigh_jvp_vectors(const Tensor& A_t, const Tensor& L, const Tensor& V);

// logcumsumexp (torch's backward; an exact tangent)
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim);
Tensor logcumsumexp_jvp(const Tensor& self_p, const Tensor& self_t, const Tensor& result, int64_t dim);

}  // namespace tcore::autograd::manual
