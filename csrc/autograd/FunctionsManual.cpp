#include "autograd/FunctionsManual.h"
#include "tcore/core/SizeMath.h"
#include "native/TensorUtils.h"  // item
#include "native/LinearAlgebraChecks.h"  // solve_vector_rhs

#include <cmath>

#include <tcore/ops/abs.h>
#include <tcore/ops/linalg_solve.h>
#include <tcore/ops/_linalg_solve_triangular.h>
#include <tcore/ops/linalg_solve_triangular.h>
#include <tcore/ops/_linalg_svd.h>
#include <tcore/ops/linalg_det.h>
#include <tcore/ops/triu.h>
#include <tcore/ops/diagonal.h>
#include <tcore/ops/eye.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/matmul.h>
#include <tcore/ops/neg.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/transpose.h>
#include <tcore/ops/tril.h>
#include <tcore/ops/linalg_pinv.h>
#include <tcore/ops/linalg_lu_solve.h>
#include <tcore/ops/lu_unpack.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/gather.h>
#include <tcore/ops/log.h>
#include <tcore/ops/logcumsumexp.h>
#include <tcore/ops/flip.h>
#include <tcore/ops/masked_fill.h>
#include <tcore/ops/xlogy.h>
#include <tcore/ops/scatter.h>
#include <tcore/ops/scatter_reduce.h>
#include <tcore/ops/full.h>
#include <tcore/ops/as_strided.h>
#include <tcore/ops/view.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/zeros.h>
#include <tcore/ops/any.h>
#include <tcore/ops/arange.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/cumprod.h>
#include <tcore/ops/scatter_add.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/add.h>
#include <tcore/ops/constant_pad_nd.h>
#include <tcore/ops/index_add.h>
#include <tcore/ops/index_select.h>
#include <tcore/ops/ne.h>
#include <tcore/ops/sign.h>
#include <tcore/ops/where.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/to.h>
#include <tcore/ops/contiguous.h>
#include <tcore/ops/cumsum.h>
#include <tcore/ops/div.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/elu_backward.h>
#include <tcore/ops/erf.h>
#include <tcore/ops/t.h>
#include <tcore/ops/matmul.h>
#include <tcore/ops/_col2im.h>
#include <tcore/ops/_log_softmax_backward_data.h>
#include <tcore/ops/_softmax_backward_data.h>
#include <tcore/ops/native_batch_norm_backward.h>
#include <tcore/ops/native_layer_norm_backward.h>
#include <tcore/ops/_conv2d_im2col_backward.h>
#include <tcore/ops/_im2col.h>
#include <tcore/ops/sigmoid.h>
#include <tcore/ops/exp.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/gt.h>
#include <tcore/ops/le.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/logical_or.h>
#include <tcore/ops/mean.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/neg.h>
#include <tcore/ops/ones_like.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/pow.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/rsqrt.h>
#include <tcore/ops/var.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/tanh.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/view.h>
#include <tcore/ops/zeros.h>
#include <tcore/ops/zeros_like.h>
#include <tcore/ops/i0.h>
#include <tcore/ops/special_i0e.h>
#include <tcore/ops/sgn.h>
#include <tcore/ops/reciprocal.h>

namespace tcore::autograd::manual {

bool differentiated(std::initializer_list<const Tensor*> ts) {
  if (GradMode::is_enabled()) return true;
  for (const Tensor* t : ts)
    if (t->defined() && fw_grad(*t).defined()) return true;
  return false;
}

Tensor not_implemented(const char* op) {
  throw NotImplementedError(detail::str_cat("the derivative for '", op, "' is not implemented."));
}

Tensor bessel_i1_backward(const Tensor& grad, const Tensor& self, const Tensor& result, bool scaled) {
  const double eps = self.dtype() == ScalarType::Double ? 2.220446049250313e-16 : 1.1920928955078125e-07;
  const Tensor away = tcore::gt(tcore::abs(self), Scalar(eps));
  const Tensor x = tcore::where(away, self, Scalar(eps));  // (where's other branch must stay finite)
  const Tensor inverse = tcore::reciprocal(x);
  const Tensor slope = scaled ? tcore::sub(tcore::special_i0e(x), tcore::mul(result, tcore::add(tcore::sgn(x), inverse)))
                              : tcore::sub(tcore::i0(x), tcore::mul(result, inverse));
  return tcore::mul(grad, tcore::where(away, slope, Scalar(0.5)));
}

Tensor zeros_of(IntArrayRef sizes, const Tensor& like) {
  return tcore::zeros(sizes, like.dtype(), std::nullopt, like.device());
}

Tensor maybe_multiply(const Tensor& grad, const Scalar& alpha) {
  const bool one = alpha.is_floating_point() ? alpha.to_double() == 1.0 : alpha.to_long() == 1;
  return one ? grad : tcore::mul(grad, alpha);
}

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (!keepdim && n > 0 && dim.has_value() && !dim->empty()) {
    std::vector<bool> reduced(n, false);
    for (int64_t d : *dim) reduced[wrap_dim(d, n)] = true;
    std::vector<int64_t> kept;  // the gradient's shape with the reduced dims put back as 1
    for (int64_t i = 0; i < n; ++i) kept.push_back(reduced[i] ? 1 : sizes[i]);
    return tcore::expand(tcore::view(tcore::contiguous(grad), kept), sizes);
  }
  if (!keepdim && n > 0) {
    return tcore::expand(tcore::view(tcore::contiguous(grad), std::vector<int64_t>(n, 1)), sizes);
  }
  return tcore::expand(grad, sizes);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim) {
  int64_t count = 1;
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (dim.has_value() && !dim->empty()) {
    for (int64_t d : *dim) count *= n ? sizes[wrap_dim(d, n)] : 1;
  } else {
    count = numel_of(sizes);
  }
  return tcore::div(sum_backward(grad, sizes, dim, keepdim), count);
}

Tensor view_backward(const Tensor& grad, IntArrayRef sizes) { return tcore::view(tcore::contiguous(grad), sizes); }

Tensor sum_to_size(const Tensor& grad, IntArrayRef sizes) {
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < grad.dim(); ++i) {
    if (i < lead || (sizes[i - lead] == 1 && grad.sizes()[i] != 1)) dims.push_back(i);
  }
  if (dims.empty()) return grad;
  return tcore::view(tcore::contiguous(tcore::sum(grad, IntArrayRef(dims), true)), sizes);
}


Tensor pow_scalar_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent) {
  const double e = exponent.to_double();
  if (e == 0.0) return tcore::zeros_like(grad);
  return tcore::mul(tcore::mul(grad, exponent), tcore::pow(self, Scalar(e - 1.0)));
}

Tensor permute_backward(const Tensor& grad, IntArrayRef dims) {
  const int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(n);
  for (int64_t i = 0; i < n; ++i) inverse[wrap_dim(dims[i], n)] = i;
  return tcore::permute(grad, inverse);
}

Tensor unsqueeze_to(const Tensor& grad, int64_t dim, IntArrayRef sizes) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (n == 0) return tcore::reshape(grad, sizes);
  const int64_t d = wrap_dim(dim, n);
  return sizes[d] == 1 && grad.dim() < n ? tcore::unsqueeze(grad, d) : grad;
}

Tensor unsqueeze_to(const Tensor& grad, IntArrayRef sizes) { return tcore::reshape(grad, sizes); }

Tensor unsqueeze_to(const Tensor& grad, IntArrayRef dim, IntArrayRef sizes) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (n == 0) return tcore::reshape(grad, sizes);
  std::vector<bool> mask(static_cast<size_t>(n), false);
  for (const int64_t d : dim) mask[static_cast<size_t>(wrap_dim(d, n))] = true;
  Tensor result = grad;
  for (int64_t d = 0; d < n; ++d)
    if (mask[static_cast<size_t>(d)] && sizes[d] == 1) result = tcore::unsqueeze(result, d);
  return result;
}

Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim) {
  const Tensor mask = tcore::eq(self, sum_backward(result, self.sizes(), dim, keepdim));
  const Tensor count = tcore::sum(mask, dim, true, std::nullopt);
  return tcore::div(tcore::mul(sum_backward(grad, self.sizes(), dim, keepdim), mask), count);
}

Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  int64_t n = 1;
  if (!dim.has_value() || dim->empty()) {
    n = self.numel();
  } else {
    for (int64_t d : *dim) n *= self.dim() == 0 ? 1 : self.sizes()[wrap_dim(d, self.dim())];
  }
  const double c = correction ? correction->to_double() : 1.0;
  const Tensor centered = tcore::sub(self, tcore::mean(self, dim, true, std::nullopt), 1);
  return tcore::mul(tcore::mul(sum_backward(grad, self.sizes(), dim, keepdim), centered),
                    Scalar(2.0 / std::max(0.0, static_cast<double>(n) - c)));
}

// 0 where the std is 0, as torch's (grad / (2 std) was NaN for a constant row)
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  const Tensor grad_var = tcore::div(grad, tcore::mul(result, Scalar(2)));
  const Tensor zero = tcore::zeros_like(grad_var);
  return var_backward(tcore::where(tcore::eq(result, Scalar(0)), zero, grad_var), self, dim, correction, keepdim);
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim) {
  return tcore::mul(sum_backward(grad, self.sizes(), dim, keepdim),
                    tcore::exp(tcore::sub(self, sum_backward(result, self.sizes(), dim, keepdim), 1)));
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  // reversed cumsum: the sum along dim, minus the cumsum, plus the element itself
  return tcore::add(tcore::sub(tcore::sum(grad, IntArrayRef({dim}), true, std::nullopt), tcore::cumsum(grad, dim, std::nullopt), 1),
                    grad, 1);
}

namespace {
// grad (N, O, oh, ow) as (N * oh * ow, O): a row per output position, as _im2col's rows
Tensor positions_by_channels(const Tensor& grad) {
  const int64_t o = grad.sizes()[1];
  return tcore::reshape(tcore::permute(grad, {0, 2, 3, 1}), {-1, o});
}

Tensor conv2d_im2col_input_backward(const Tensor& grad, const Tensor& self, const Tensor& weight, IntArrayRef stride,
                                    IntArrayRef padding, IntArrayRef dilation) {
  const int64_t o = weight.sizes()[0];
  const Tensor w2 = tcore::reshape(weight, {o, -1});  // (O, C * kh * kw)
  const Tensor cols = tcore::matmul(positions_by_channels(grad), w2);  // (N * oh * ow, C * kh * kw)
  return tcore::_col2im(cols, self.sizes(), {weight.sizes()[2], weight.sizes()[3]}, dilation, padding, stride);
}

Tensor conv2d_im2col_weight_backward(const Tensor& grad, const Tensor& self, const Tensor& weight, IntArrayRef stride,
                                     IntArrayRef padding, IntArrayRef dilation) {
  const Tensor cols = tcore::_im2col(self, {weight.sizes()[2], weight.sizes()[3]}, dilation, padding, stride);
  const Tensor w2 = tcore::matmul(tcore::t(positions_by_channels(grad)), cols);  // (O, C * kh * kw)
  return tcore::reshape(w2, weight.sizes());
}
}  // namespace

std::tuple<Tensor, Tensor> conv2d_im2col_backward(const Tensor& grad, const Tensor& self, const Tensor& weight,
                                                  IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                  int64_t groups, std::array<bool, 2> mask) {
  if (!differentiated({&grad, &self, &weight}))
    return tcore::_conv2d_im2col_backward(grad, self, weight, stride, padding, dilation, groups, mask);
  // differentiable again, in the kernel's layout (channels_last when the input or the weight is)
  const bool channels_last = self.suggest_memory_format() == MemoryFormat::ChannelsLast ||
                             weight.suggest_memory_format() == MemoryFormat::ChannelsLast;
  const auto laid_out = [&](const Tensor& r) {
    return channels_last && r.defined() ? tcore::contiguous(r, MemoryFormat::ChannelsLast) : r;
  };
  if (groups > 1) {  // each group's gradients, concatenated
    const int64_t cg = self.sizes()[1] / groups, og = weight.sizes()[0] / groups;
    std::vector<Tensor> dx, dw;
    for (int64_t g = 0; g < groups; ++g) {
      const auto [dxg, dwg] = conv2d_im2col_backward(tcore::narrow(grad, 1, g * og, og), tcore::narrow(self, 1, g * cg, cg),
                                                     tcore::narrow(weight, 0, g * og, og), stride, padding, dilation, 1,
                                                     mask);
      dx.push_back(dxg);
      dw.push_back(dwg);
    }
    return {mask[0] ? laid_out(tcore::cat(dx, 1)) : Tensor(), mask[1] ? laid_out(tcore::cat(dw, 0)) : Tensor()};
  }
  return {mask[0] ? laid_out(conv2d_im2col_input_backward(grad, self, weight, stride, padding, dilation)) : Tensor(),
          mask[1] ? laid_out(conv2d_im2col_weight_backward(grad, self, weight, stride, padding, dilation)) : Tensor()};
}

Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim, bool log) {
  if (result.device().is_cpu() && !differentiated({&grad, &result})) {  // the kernels (native/cpu/ReduceMore.cpp)
    return log ? tcore::_log_softmax_backward_data(grad, result, dim, result.dtype())
               : tcore::_softmax_backward_data(grad, result, dim, result.dtype());
  }
  const std::vector<int64_t> d{dim};
  if (log) return tcore::sub(grad, tcore::mul(tcore::exp(result), tcore::sum(grad, IntArrayRef(d), true, std::nullopt)), 1);
  return tcore::mul(result, tcore::sub(grad, tcore::sum(tcore::mul(grad, result), IntArrayRef(d), true, std::nullopt), 1));
}

Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return tcore::mean(loss, std::optional<ScalarType>());
  return reduction == Reduction::Sum ? tcore::sum(loss, std::optional<ScalarType>()) : loss;
}

Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate) {
  const Tensor g = tcore::mul(grad, grad_output);
  const Tensor x2 = tcore::mul(self, self);
  if (approximate == "tanh") {
    // (1 - t^2) (u' - x t u'^2 + 3 beta kappa x^2), t = tanh(u), u = beta (x + kappa x^3), u' = beta (1 + 3 kappa x^2)
    const double beta = 0.7978845608028654, kappa = 0.044715;
    const Tensor t = tcore::tanh(tcore::mul(tcore::add(self, tcore::mul(tcore::mul(x2, self), Scalar(kappa)), 1),
                                            Scalar(beta)));
    const Tensor du = tcore::mul(tcore::add(tcore::mul(x2, Scalar(3 * kappa)), Scalar(1), 1), Scalar(beta));
    const Tensor sech2 = tcore::add(tcore::neg(tcore::mul(t, t)), Scalar(1), 1);
    const Tensor bracket = tcore::add(tcore::sub(du, tcore::mul(tcore::mul(self, t), tcore::mul(du, du)), 1),
                                      tcore::mul(x2, Scalar(3 * beta * kappa)), 1);
    return tcore::mul(g, tcore::mul(sech2, bracket));
  }
  // phi(x) (2 - x^2)
  const Tensor pdf = tcore::mul(tcore::exp(tcore::mul(x2, Scalar(-0.5))), Scalar(0.3989422804014327));
  return tcore::mul(g, tcore::mul(pdf, tcore::add(tcore::neg(x2), Scalar(2), 1)));
}

Tensor silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self) {
  const Tensor s = tcore::sigmoid(self);
  const Tensor s_ds = tcore::mul(s, tcore::sigmoid(tcore::neg(self)));  // s (1 - s)
  const Tensor bracket = tcore::add(tcore::mul(self, tcore::add(tcore::mul(s, Scalar(-2)), Scalar(1), 1)), Scalar(2), 1);
  return tcore::mul(tcore::mul(tcore::mul(grad, grad_output), s_ds), bracket);
}

Tensor softplus_double_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  const Tensor z = tcore::mul(self, beta);
  const Tensor s_ds = tcore::mul(tcore::sigmoid(z), tcore::sigmoid(tcore::neg(z)));
  return tcore::mul(tcore::mul(tcore::mul(grad, s_ds), tcore::lt(z, threshold)), beta);
}

Tensor elu_double_backward(const Tensor& grad, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result) {
  const Tensor g = tcore::mul(tcore::mul(grad, grad_output), input_scale);
  const Tensor negative = tcore::lt(self_or_result, Scalar(0));
  if (is_result) return tcore::mul(g, negative);
  return tcore::mul(tcore::elu_backward(g, alpha, scale, input_scale, false, self_or_result), negative);
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  Tensor mask;
  if (min) mask = tcore::ge(self, *min);
  if (max) mask = mask.defined() ? tcore::logical_and(mask, tcore::le(self, *max)) : tcore::le(self, *max);
  return mask.defined() ? tcore::where(mask, grad, tcore::zeros_like(grad)) : grad;
}

// hardtanh's: 0 at and beyond the bounds (clamp's passes at them), NaN passing, as torch's
Tensor hardtanh_backward(const Tensor& grad, const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  const Tensor outside = tcore::logical_or(tcore::le(self, min_val), tcore::ge(self, max_val));
  return tcore::where(outside, tcore::zeros_like(grad), grad);
}

// atan2's: grad * other / (self^2 + other^2) and -grad * self / (...), 0 at the origin as torch's
namespace {
Tensor atan2_part(const Tensor& grad, const Tensor& self, const Tensor& other, const Tensor& numerator) {
  const Tensor r2 = tcore::add(tcore::mul(self, self), tcore::mul(other, other), 1);
  const Tensor part = tcore::div(tcore::mul(grad, numerator), r2);
  return tcore::where(tcore::eq(r2, Scalar(0)), tcore::zeros_like(part), part);
}
}  // namespace
Tensor atan2_self_backward(const Tensor& grad, const Tensor& self, const Tensor& other) {
  return atan2_part(grad, self, other, other);
}
Tensor atan2_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other) {
  return atan2_part(grad, self, other, tcore::neg(self));
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max) {
  Tensor keep;
  if (min.defined()) keep = tcore::ge(self, min);
  if (max.defined()) keep = keep.defined() ? tcore::logical_and(keep, tcore::le(self, max)) : tcore::le(self, max);
  return keep.defined() ? tcore::where(keep, grad, tcore::zeros_like(grad)) : grad;
}

std::tuple<Tensor, Tensor> clamp_backward_min_max(const Tensor& grad, const Tensor& self, const Tensor& min,
                                                  const Tensor& max, const std::array<bool, 2>& grad_input_mask) {
  std::tuple<Tensor, Tensor> out;
  const Tensor zero = tcore::zeros_like(grad);
  if (min.defined() && max.defined()) {
    if (grad_input_mask[0])
      std::get<0>(out) = tcore::where(tcore::logical_and(tcore::lt(self, min), tcore::lt(min, max)), grad, zero);
    if (grad_input_mask[1])
      std::get<1>(out) = tcore::where(tcore::logical_or(tcore::gt(self, max), tcore::lt(max, min)), grad, zero);
  } else if (min.defined() && grad_input_mask[0]) {
    std::get<0>(out) = tcore::where(tcore::lt(self, min), grad, zero);
  } else if (max.defined() && grad_input_mask[1]) {
    std::get<1>(out) = tcore::where(tcore::gt(self, max), grad, zero);
  }
  return out;
}

Tensor xlogy_jvp(const Tensor& self_p, const Tensor& self_t, const Tensor& other_p, const Tensor& other_t) {
  Tensor out;
  if (self_t.defined()) {
    out = tcore::masked_fill(tcore::xlogy(self_t, other_p),
                             tcore::logical_and(tcore::eq(self_p, Scalar(0)), tcore::le(other_p, Scalar(0))), Scalar(0));
  }
  if (other_t.defined()) {  // (a zero tangent adds nothing: torch's absent tangent is a zero tensor that never
                            // multiplies into NaN, and the engine hands this function materialized zeros)
    const Tensor term = tcore::where(tcore::eq(other_t, Scalar(0)), tcore::zeros_like(other_t),
                                     tcore::div(tcore::mul(other_t, self_p), other_p));
    out = out.defined() ? tcore::add(out, term) : term;
  }
  return out;
}

Tensor clamp_jvp(const Tensor& self_p, const Tensor& self_t, const Tensor& min_p, const Tensor& min_t,
                 const Tensor& max_p, const Tensor& max_t) {
  // an undefined bound's tangent is zero where that bound is picked
  const auto tangent = [&](const Tensor& t) { return t.defined() ? t : tcore::zeros_like(self_t); };
  if (min_p.defined() && max_p.defined()) {
    return tcore::where(tcore::gt(min_p, max_p), tangent(max_t),
                        tcore::where(tcore::lt(self_p, min_p), tangent(min_t),
                                     tcore::where(tcore::gt(self_p, max_p), tangent(max_t), self_t)));
  }
  if (min_p.defined()) return tcore::where(tcore::gt(self_p, min_p), self_t, tangent(min_t));
  if (max_p.defined()) return tcore::where(tcore::lt(self_p, max_p), self_t, tangent(max_t));
  return self_t;
}

Tensor div_mode_self_backward(const Tensor& grad, const Tensor& other, const std::optional<std::string>& rounding_mode) {
  return rounding_mode ? tcore::zeros_like(grad) : tcore::div(grad, other);
}

Tensor div_mode_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                               const std::optional<std::string>& rounding_mode) {
  if (rounding_mode) return tcore::zeros_like(grad);
  return tcore::neg(tcore::div(tcore::mul(grad, self), tcore::mul(other, other)));
}

std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes,
                                         const std::vector<ScalarType>& dtypes, int64_t dim) {
  std::vector<Tensor> out = cat_tensors_backward(grad, sizes, dim);
  for (size_t i = 0; i < out.size() && i < dtypes.size(); ++i) {
    if (out[i].defined() && out[i].scalar_type() != dtypes[i]) out[i] = tcore::to(out[i], dtypes[i]);
  }
  return out;
}

std::vector<ScalarType> to_args_scalartypes(ArrayRef<Tensor> tensors) {
  std::vector<ScalarType> out;
  for (const Tensor& t : tensors) out.push_back(t.scalar_type());
  return out;
}

std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes,
                                         int64_t dim) {
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  int64_t offset = 0;
  for (const auto& s : sizes) {
    if (s.size() == 1 && s[0] == 0) {  // skipped by cat
      out.push_back(tcore::zeros(IntArrayRef(s), grad.dtype()));
      continue;
    }
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(s.size()));
    out.push_back(tcore::narrow(grad, d, offset, s[d]));
    offset += s[d];
  }
  return out;
}

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  std::vector<int64_t> crop;
  for (int64_t v : pad) crop.push_back(-v);
  return tcore::constant_pad_nd(grad, crop, 0);
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& result,
                     IntArrayRef dim, bool keepdim) {
  const double order = p ? p->to_double() : 2.0;
  const OptionalIntArrayRef dims = dim.empty() ? OptionalIntArrayRef() : OptionalIntArrayRef(dim);
  if (order == 0) return tcore::zeros_like(self);
  const Tensor g = sum_backward(grad, self.sizes(), dims, keepdim);
  if (order == 1) return tcore::mul(tcore::sign(self), g);
  const Tensor r = sum_backward(result, self.sizes(), dims, keepdim);
  if (std::isinf(order)) {
    const Tensor mask = tcore::eq(tcore::abs(self), r);
    const Tensor count = dim.empty() ? tcore::sum(mask, std::optional<ScalarType>()) : tcore::sum(mask, dim, true, std::nullopt);
    return tcore::div(tcore::mul(tcore::mul(tcore::sign(self), g), mask), count);
  }
  Tensor scaled;
  if (order == 2) {
    scaled = tcore::div(tcore::mul(self, g), r);
  } else {
    const Tensor a = tcore::abs(self);
    scaled = tcore::div(tcore::mul(tcore::mul(self, tcore::pow(a, order - 2)), g), tcore::pow(r, order - 1));
  }
  return tcore::where(tcore::eq(r, 0), tcore::zeros_like(scaled), scaled);
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq) {
  const int64_t width = grad.sizes().back();
  const Tensor idx = tcore::reshape(indices.dtype() == ScalarType::Long ? indices : tcore::to(indices, ScalarType::Long), {-1});
  Tensor g = tcore::reshape(grad, {-1, width});
  if (padding_idx >= 0) g = tcore::mul(g, tcore::unsqueeze(tcore::ne(idx, padding_idx), 1));
  if (scale_grad_by_freq) {
    const Tensor counts = tcore::index_add(tcore::zeros({num_weights}, grad.dtype()), 0, idx,
                                           tcore::ones({idx.numel()}, grad.dtype()));
    g = tcore::div(g, tcore::unsqueeze(tcore::index_select(counts, 0, idx), 1));
  }
  return tcore::index_add(tcore::zeros({num_weights, width}, grad.dtype()), 0, idx, g);
}

namespace {
// The product of the elements before each position along d (1 for the first).
Tensor exclusive_cumprod(const Tensor& x, int64_t d) {
  const int64_t n = x.sizes()[d];
  const Tensor one = tcore::ones_like(tcore::narrow(x, d, 0, 1));
  if (n == 1) return one;
  return tcore::cat(std::vector<Tensor>{one, tcore::narrow(tcore::cumprod(x, d, std::nullopt), d, 0, n - 1)}, d);
}
}  // namespace

Tensor prod_dim_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim) {
  (void)result;
  if (self.dim() == 0) return grad;
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.sizes()[d];
  if (n == 0 || self.numel() == 0) return tcore::zeros_like(self);
  const Tensor g = keepdim ? grad : tcore::unsqueeze(grad, d);
  const Tensor reversed = tcore::arange(n - 1, -1, -1, ScalarType::Long);
  const Tensor left = exclusive_cumprod(self, d);
  const Tensor right = tcore::index_select(exclusive_cumprod(tcore::index_select(self, d, reversed), d), d, reversed);
  return tcore::mul(g, tcore::mul(left, right));
}

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  if (self.dim() == 0) return grad;
  const Tensor flat = tcore::reshape(self, {-1});
  return tcore::reshape(prod_dim_backward(grad, flat, result, 0, false), self.sizes());
}

namespace {
// The storage index of every element of a (sizes, strides, offset) layout, as an int64 tensor of that shape.
Tensor storage_indices(IntArrayRef sizes, IntArrayRef strides, int64_t offset, Device device) {
  Tensor idx = tcore::full({}, Scalar(offset), ScalarType::Long, std::nullopt, device);
  for (size_t k = 0; k < sizes.size(); ++k) {
    Tensor steps = tcore::mul(tcore::arange(Scalar(sizes[k]), ScalarType::Long, std::nullopt, device),
                              Scalar(strides[k]));
    idx = tcore::add(tcore::unsqueeze(idx, -1), steps, 1);
  }
  return idx;
}
}  // namespace

Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_offset, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset) {
  const int64_t out_offset = storage_offset.value_or(input_offset);
  for (size_t k = 0; k < input_sizes.size(); ++k) {
    TCORE_CHECK(input_sizes[k] <= 1 || input_strides[k] != 0,
                "as_strided: the derivative for an input that overlaps itself (an expanded tensor) is not implemented");
  }
  const int64_t extent = std::max(required_storage_elements(input_sizes, input_strides, input_offset, "as_strided"),
                                  required_storage_elements(size, stride, out_offset, "as_strided"));
  Tensor storage = tcore::zeros({extent}, grad.dtype(), std::nullopt, grad.device());
  if (grad.numel() > 0) {
    const Tensor idx = tcore::reshape(storage_indices(size, stride, out_offset, grad.device()), {-1});
    storage = tcore::index_add(storage, 0, idx, tcore::reshape(grad, {-1}), 1);
  }
  return tcore::as_strided(storage, input_sizes, input_strides, input_offset);
}

Tensor split_with_sizes_backward(const std::vector<Tensor>& grads, IntArrayRef split_sizes, int64_t dim,
                                 IntArrayRef sizes) {
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  const Tensor* like = nullptr;
  for (const Tensor& g : grads)
    if (!like && g.defined()) like = &g;
  TCORE_CHECK(like != nullptr, "split_backward: no gradient is defined");
  std::vector<Tensor> parts;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) {
      parts.push_back(grads[i]);
      continue;
    }
    std::vector<int64_t> shape = sizes.vec();
    shape[d] = split_sizes[i];
    parts.push_back(tcore::zeros(shape, like->dtype(), std::nullopt, like->device()));
  }
  return tcore::cat(parts, d);
}

Tensor unbind_backward(const std::vector<Tensor>& grads, int64_t dim, IntArrayRef sizes) {
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  std::vector<Tensor> pieces;
  for (const Tensor& g : grads) pieces.push_back(g.defined() ? tcore::unsqueeze(g, d) : g);
  return split_with_sizes_backward(pieces, std::vector<int64_t>(grads.size(), 1), d, sizes);
}

Tensor split_backward(const std::vector<Tensor>& grads, int64_t split_size, int64_t dim, IntArrayRef sizes) {
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  std::vector<int64_t> pieces(grads.size(), split_size);
  if (!pieces.empty()) pieces.back() = sizes[d] - split_size * static_cast<int64_t>(pieces.size() - 1);
  return split_with_sizes_backward(grads, pieces, d, sizes);
}

Tensor div_mode_self_backward(const Tensor& grad, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return div_mode_self_backward(grad, other, rounding_mode ? std::optional<std::string>(std::string(*rounding_mode))
                                                           : std::optional<std::string>());
}

Tensor div_mode_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                               std::optional<std::string_view> rounding_mode) {
  return div_mode_other_backward(grad, self, other, rounding_mode ? std::optional<std::string>(std::string(*rounding_mode))
                                                                  : std::optional<std::string>());
}

Tensor gather_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index) {
  return tcore::scatter_add_(tcore::zeros(self.sizes(), grad.dtype(), std::nullopt, grad.device()), dim, index, grad);
}

Tensor sum_over(const Tensor& x, OptionalIntArrayRef dim, bool keepdim) {
  if (!dim.has_value() || dim->empty()) {
    return keepdim ? tcore::sum(x, OptionalIntArrayRef(), true, std::nullopt) : tcore::sum(x);
  }
  return tcore::sum(x, dim, keepdim, std::nullopt);
}

Tensor value_selecting_reduction_jvp(const Tensor& self_t, int64_t dim, const Tensor& indices, bool keepdim) {
  if (self_t.dim() == 0) return self_t;
  const int64_t d = wrap_dim(dim, self_t.dim());
  const Tensor idx = keepdim ? indices : tcore::unsqueeze(indices, d);
  const Tensor picked = tcore::gather(self_t, d, idx, false);
  return keepdim ? picked : tcore::squeeze(picked, d);
}

Tensor cumprod_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, int64_t dim) {
  if (self.dim() == 0) return self_t;
  const int64_t d = wrap_dim(dim, self.dim());
  const Tensor is_zero = tcore::eq(self, Scalar(0));
  const Tensor zeros_seen = tcore::cumsum(is_zero, d, ScalarType::Long);
  // no zero up to k: result_k * sum_{i<=k} t_i / x_i
  const Tensor safe = tcore::where(is_zero, tcore::ones_like(self), self);
  const Tensor no_zero = tcore::mul(result, tcore::cumsum(tcore::div(self_t, safe), d, std::nullopt));
  // zeros up to k: only the first zero's term survives (0 after a second zero): t_z times the
  // product of the others, the first zero counted as 1
  const Tensor first_zero = tcore::logical_and(is_zero, tcore::eq(zeros_seen, Scalar(1)));
  const Tensor x_without_first = tcore::where(first_zero, tcore::ones_like(self), self);
  const Tensor t_at_first = sum_over(tcore::mul(self_t, first_zero), IntArrayRef({d}), true);
  const Tensor with_zero = tcore::mul(t_at_first, tcore::cumprod(x_without_first, d, std::nullopt));
  return tcore::where(tcore::eq(zeros_seen, Scalar(0)), no_zero, with_zero);
}

namespace {
// The normalized dims (the last k) and the leading ones.
std::vector<int64_t> dims_from(int64_t begin, int64_t end) {
  std::vector<int64_t> dims;
  for (int64_t d = begin; d < end; ++d) dims.push_back(d);
  return dims;
}
}  // namespace

namespace {
// The normalizations (layer_norm over its last dims, batch_norm over all but the channels):
// xhat = (x - mean) * rstd over `dims`, then an affine map. Their gradients and tangents
// differ only in the dims and in how the weight broadcasts (`w`: already broadcastable).

// d/dx of xhat given g = grad * weight: (g - mean(g) - xhat * mean(g * xhat)) * rstd.
Tensor normalized_input_backward(const Tensor& g, const Tensor& xhat, const Tensor& rstd,
                                 const std::vector<int64_t>& dims) {
  const Tensor g_mean = tcore::mean(g, IntArrayRef(dims), true, std::nullopt);
  const Tensor gx_mean = tcore::mean(tcore::mul(g, xhat), IntArrayRef(dims), true, std::nullopt);
  return tcore::mul(tcore::sub(tcore::sub(g, g_mean, 1), tcore::mul(xhat, gx_mean), 1), rstd);
}

// The tangent of xhat * w + b from xhat's tangent (undefined when the input has none) and those
// of w and b (any undefined); `zeros_like` when none is defined.
Tensor affine_jvp(const Tensor& xhat_t, const Tensor& xhat, const Tensor& w, const Tensor& w_t, const Tensor& b_t) {
  Tensor out = xhat_t.defined() && w.defined() ? tcore::mul(xhat_t, w) : xhat_t;
  if (w_t.defined()) out = out.defined() ? tcore::add(out, tcore::mul(xhat, w_t), 1) : tcore::mul(xhat, w_t);
  if (b_t.defined()) out = out.defined() ? tcore::add(out, b_t, 1) : tcore::add(tcore::zeros_like(xhat), b_t, 1);
  return out.defined() ? out : tcore::zeros_like(xhat);
}

// The tangent of xhat * w + b with xhat's statistics over `dims` taken from the input too.
Tensor normalized_jvp(const Tensor& input_t, const Tensor& xhat, const Tensor& rstd, const Tensor& w,
                      const Tensor& w_t, const Tensor& b_t, const std::vector<int64_t>& dims) {
  Tensor xhat_t;
  if (input_t.defined()) {
    const Tensor t = tcore::sub(input_t, tcore::mean(input_t, IntArrayRef(dims), true, std::nullopt), 1);
    const Tensor tx_mean = tcore::mean(tcore::mul(t, xhat), IntArrayRef(dims), true, std::nullopt);
    xhat_t = tcore::mul(tcore::sub(t, tcore::mul(xhat, tx_mean), 1), rstd);
  }
  return affine_jvp(xhat_t, xhat, w, w_t, b_t);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& input,
                                                       IntArrayRef normalized_shape, const Tensor& mean,
                                                       const Tensor& rstd, const std::optional<Tensor>& weight,
                                                       double eps, std::array<bool, 3> mask) {
  const Tensor w = weight ? *weight : Tensor();
  if (input.device().is_cpu() && !differentiated({&grad, &input, &w})) {  // the kernel (native/cpu/Normalization.cpp)
    return tcore::native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight, std::nullopt, mask);
  }
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  const std::vector<int64_t> norm_dims = dims_from(axis, input.dim()), lead_dims = dims_from(0, axis);
  Tensor m = mean, r = rstd;
  if (differentiated({&input})) {
    m = tcore::mean(input, IntArrayRef(norm_dims), true, std::nullopt);
    r = tcore::rsqrt(tcore::add(tcore::var(input, IntArrayRef(norm_dims), Scalar(0), true), Scalar(eps), 1));
  }
  const Tensor xhat = tcore::mul(tcore::sub(input, m, 1), r);
  const bool has_weight = weight && weight->defined();  // a saved None is an undefined Tensor
  Tensor dx, dw, db;
  if (mask[0]) dx = normalized_input_backward(has_weight ? tcore::mul(grad, *weight) : grad, xhat, r, norm_dims);
  const auto over_leading = [&](const Tensor& t) {
    return lead_dims.empty() ? t : tcore::sum(t, IntArrayRef(lead_dims), false, std::nullopt);
  };
  if (mask[1] && has_weight) dw = over_leading(tcore::mul(grad, xhat));
  if (mask[2]) db = over_leading(grad);
  return {dx, dw, db};
}

Tensor layer_norm_jvp(const Tensor& input, const Tensor& input_t, const Tensor& weight, const Tensor& weight_t,
                      const Tensor& bias, const Tensor& bias_t, const Tensor& mean, const Tensor& rstd,
                      IntArrayRef normalized_shape) {
  (void)bias;  // the output is linear in the bias: only its tangent matters
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  const Tensor xhat = tcore::mul(tcore::sub(input, mean, 1), rstd);
  return normalized_jvp(input_t, xhat, rstd, weight, weight_t, bias_t, dims_from(axis, input.dim()));
}

namespace {
// batch_norm's channels: every dim but 1 is reduced; a (C,) vector broadcasts as (1, C, 1, ...).
std::vector<int64_t> batch_norm_dims(const Tensor& input) {
  std::vector<int64_t> dims = dims_from(2, input.dim());
  dims.insert(dims.begin(), 0);
  return dims;
}
Tensor per_channel(const Tensor& v, const Tensor& input) {
  if (!v.defined()) return v;
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = input.sizes()[1];
  return tcore::view(v, IntArrayRef(shape));
}
// The mean and 1/sqrt(var + eps) batch_norm used, shaped per channel: the batch's, recomputed
// from input when the formula is differentiated (the saved ones are constants), or the running ones.
std::pair<Tensor, Tensor> batch_norm_statistics(const Tensor& input, const Tensor& running_mean,
                                                const Tensor& running_var, const Tensor& save_mean,
                                                const Tensor& save_invstd, bool training, double eps,
                                                bool recompute) {
  if (!training) {
    return {per_channel(running_mean, input),
            per_channel(tcore::rsqrt(tcore::add(running_var, Scalar(eps), 1)), input)};
  }
  if (!recompute) return {per_channel(save_mean, input), per_channel(save_invstd, input)};
  const std::vector<int64_t> dims = batch_norm_dims(input);
  return {tcore::mean(input, IntArrayRef(dims), true, std::nullopt),
          tcore::rsqrt(tcore::add(tcore::var(input, IntArrayRef(dims), Scalar(0), true), Scalar(eps), 1))};
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input,
                                                       const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& running_mean,
                                                       const std::optional<Tensor>& running_var,
                                                       const Tensor& save_mean, const Tensor& save_invstd,
                                                       bool training, double eps, std::array<bool, 3> mask) {
  const Tensor w = weight ? *weight : Tensor(), rm = running_mean ? *running_mean : Tensor(),
               rv = running_var ? *running_var : Tensor();
  if (input.device().is_cpu() && !differentiated({&grad, &input, &w})) {
    return tcore::native_batch_norm_backward(grad, input, weight, running_mean, running_var, save_mean, save_invstd,
                                             training, eps, mask);
  }
  const auto [m, r] = batch_norm_statistics(input, rm, rv, save_mean, save_invstd, training, eps, true);
  const std::vector<int64_t> dims = batch_norm_dims(input);
  const Tensor xhat = tcore::mul(tcore::sub(input, m, 1), r);
  Tensor dx, dw, db;
  if (mask[0]) {
    const Tensor g = w.defined() ? tcore::mul(grad, per_channel(w, input)) : grad;
    dx = training ? normalized_input_backward(g, xhat, r, dims) : tcore::mul(g, r);
  }
  if (mask[1] && w.defined()) dw = tcore::sum(tcore::mul(grad, xhat), IntArrayRef(dims), false, std::nullopt);
  if (mask[2]) db = tcore::sum(grad, IntArrayRef(dims), false, std::nullopt);
  return {dx, dw, db};
}

Tensor batch_norm_jvp(const Tensor& input, const Tensor& input_t, const Tensor& weight, const Tensor& weight_t,
                      const Tensor& bias_t, const Tensor& running_mean, const Tensor& running_var,
                      const Tensor& save_mean, const Tensor& save_invstd, bool training, double eps) {
  const auto [m, r] = batch_norm_statistics(input, running_mean, running_var, save_mean, save_invstd, training, eps,
                                            false);
  const Tensor xhat = tcore::mul(tcore::sub(input, m, 1), r);
  const Tensor w = per_channel(weight, input), w_t = per_channel(weight_t, input), b_t = per_channel(bias_t, input);
  if (training) return normalized_jvp(input_t, xhat, r, w, w_t, b_t, batch_norm_dims(input));
  // outside training the statistics are constants: xhat is affine in the input
  return affine_jvp(input_t.defined() ? tcore::mul(input_t, r) : Tensor(), xhat, w, w_t, b_t);
}

Tensor copysign_tensor_self_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  return tcore::mul(grad, tcore::masked_fill(tcore::div(result, self), tcore::eq(self, 0), 0));
}

namespace {
// 1 where a equals b, else 0, in `like`'s dtype
Tensor equal_as(const Tensor& a, const Tensor& b, const Tensor& like) {
  return tcore::to(tcore::eq(a, b), like.dtype(), false, false, std::nullopt);
}
}  // namespace

std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, std::string_view reduce,
                                                   bool include_self, const Tensor& result) {
  Tensor grad_self, grad_src;
  if (reduce == "sum") {
    grad_self = grad;
    grad_src = tcore::gather(grad, dim, index);
  } else if (reduce == "mean") {
    Tensor n = include_self ? tcore::ones_like(self) : tcore::zeros_like(self);
    n = tcore::scatter_add(n, dim, index, tcore::ones_like(src));
    grad_self = tcore::div(grad, tcore::masked_fill(n, tcore::eq(n, 0), 1));
    grad_src = tcore::gather(grad_self, dim, index);
  } else if (reduce == "prod") {
    // self's factor: the product of the others, recomputed with self's zeros as 1
    const Tensor masked_self = tcore::masked_fill(self, tcore::eq(self, 0), 1);
    const Tensor masked_self_result = tcore::scatter_reduce(masked_self, dim, index, src, reduce, include_self);
    grad_self = tcore::div(tcore::mul(grad, masked_self_result), masked_self);
    const Tensor src_zero = tcore::eq(src, 0);
    const Tensor zeros_there = tcore::gather(
        tcore::scatter_add(tcore::zeros_like(self), dim, index, equal_as(src, tcore::zeros_like(src), self)), dim, index);
    const Tensor single_zero = tcore::logical_and(src_zero, tcore::eq(zeros_there, 1));
    const Tensor without_it = tcore::scatter_reduce(self, dim, index, tcore::masked_fill(src, single_zero, 1), reduce,
                                                    include_self);
    grad_src = tcore::where(single_zero, tcore::gather(tcore::mul(grad, without_it), dim, index),
                            tcore::div(tcore::gather(tcore::mul(grad, result), dim, index),
                                       tcore::masked_fill(src, src_zero, 1)));
  } else {  // amax, amin
    const Tensor value = tcore::gather(result, dim, index);
    const Tensor self_is_result = equal_as(self, result, self), src_is_result = equal_as(src, value, self);
    const Tensor shared = tcore::div(grad, tcore::scatter_add(self_is_result, dim, index, src_is_result));
    grad_self = tcore::mul(self_is_result, shared);
    grad_src = tcore::mul(src_is_result, tcore::gather(shared, dim, index));
  }
  if (!include_self) grad_self = tcore::scatter(grad_self, dim, index, 0);
  return {grad_self, grad_src};
}

Tensor scatter_reduce_jvp(const Tensor& self_p, const Tensor& self_t, int64_t dim, const Tensor& index,
                          const Tensor& src_p, const Tensor& src_t, std::string_view reduce, bool include_self,
                          const Tensor& result) {
  const Tensor st = self_t.defined() ? self_t : tcore::zeros_like(self_p);
  const Tensor rt = src_t.defined() ? src_t : tcore::zeros_like(src_p);
  if (reduce == "sum" || reduce == "mean") return tcore::scatter_reduce(st, dim, index, rt, reduce, include_self);
  TCORE_CHECK_AS(NotImplementedError, reduce != "prod",
                 "the forward-mode derivative of scatter_reduce with reduce='prod' is not implemented");
  const Tensor value = tcore::gather(result, dim, index);
  Tensor self_is_result = equal_as(self_p, result, self_p);
  if (!include_self) self_is_result = tcore::scatter(self_is_result, dim, index, 0);  // self takes no part there
  const Tensor src_is_result = equal_as(src_p, value, self_p);
  const Tensor n = tcore::scatter_add(self_is_result, dim, index, src_is_result);
  return tcore::div(tcore::scatter_add(tcore::mul(self_is_result, st), dim, index, tcore::mul(src_is_result, rt)), n);
}

// ---------------------------------------------------------------- torch.linalg
namespace {
Tensor mT(const Tensor& t) { return tcore::transpose(t, -2, -1); }
// tr(X) of each matrix, as a tensor of the batch's shape
Tensor traces(const Tensor& x) { return tcore::sum(tcore::diagonal(x, 0, -2, -1), IntArrayRef({-1}), false, std::nullopt); }
// the lower triangle with its diagonal halved: (tril(x) + tril(x, -1)) / 2
Tensor phi(const Tensor& x) { return tcore::mul(tcore::add(tcore::tril(x, 0), tcore::tril(x, -1)), Scalar(0.5)); }
}  // namespace

// X = A^-1 B (left) or B A^-1: gB = A^-T gX (left) or gX A^-T, gA = -gB X^T (left) or -X^T gB; a
// vector B (torch's rule) as a column. gB by getrs on the forward's LU factors, or by linalg.solve
// on A^T where this formula is itself differentiated (the factors have no derivative).
std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& X, const Tensor& A, const Tensor& LU,
                                                 const Tensor& pivots, bool left,
                                                 const std::array<bool, 2>& grad_input_mask) {
  if (!grad.defined()) return {};
  const bool vector = native::solve_vector_rhs(A, X);
  const Tensor g = vector ? tcore::unsqueeze(grad, -1) : grad, x = vector ? tcore::unsqueeze(X, -1) : X;
  const Tensor gB = differentiated({&grad, &A, &X}) ? tcore::linalg_solve(mT(A), g, left)
                                                    : tcore::linalg_lu_solve(LU, pivots, g, left, true);
  Tensor gA;
  if (grad_input_mask[0]) gA = tcore::neg(left ? tcore::matmul(gB, mT(x)) : tcore::matmul(mT(x), gB));
  return {gA, grad_input_mask[1] ? (vector ? tcore::squeeze(gB, -1) : gB) : Tensor()};
}

// dX = A^-1 (dB - dA X) (left) or (dB - X dA) A^-1, on the forward's LU factors
Tensor linalg_solve_jvp(const Tensor& A_t, const Tensor& B_t, const Tensor& X, const Tensor& LU, const Tensor& pivots,
                        bool left) {
  const bool vector = native::solve_vector_rhs(LU, X);
  const auto column = [vector](const Tensor& t) { return vector && t.defined() ? tcore::unsqueeze(t, -1) : t; };
  Tensor rhs = column(B_t);
  if (A_t.defined()) {
    const Tensor x = column(X);
    const Tensor product = left ? tcore::matmul(A_t, x) : tcore::matmul(x, A_t);
    rhs = rhs.defined() ? tcore::sub(rhs, product) : tcore::neg(product);
  }
  if (!rhs.defined()) return Tensor();
  const Tensor dX = tcore::linalg_lu_solve(LU, pivots, rhs, left, false);
  return vector ? tcore::squeeze(dX, -1) : dX;
}

namespace {
// the triangle of x that a triangular solve reads
Tensor read_triangle(const Tensor& x, bool upper, bool unitriangular) {
  return upper ? tcore::triu(x, unitriangular ? 1 : 0) : tcore::tril(x, unitriangular ? -1 : 0);
}
}  // namespace

std::tuple<Tensor, Tensor> solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& result,
                                                     bool upper, bool unitriangular,
                                                     const std::array<bool, 2>& grad_input_mask) {
  if (!grad.defined()) return {};
  const Tensor gB = tcore::_linalg_solve_triangular(mT(A), grad, !upper, unitriangular);
  Tensor gA;
  if (grad_input_mask[0]) gA = read_triangle(tcore::neg(tcore::matmul(gB, mT(result))), upper, unitriangular);
  return {gA, grad_input_mask[1] ? gB : Tensor()};
}

Tensor solve_triangular_jvp(const Tensor& A_p, const Tensor& A_t, const Tensor& B_t, const Tensor& result, bool upper,
                            bool unitriangular) {
  Tensor rhs = B_t;
  if (A_t.defined()) {
    const Tensor product = tcore::matmul(read_triangle(A_t, upper, unitriangular), result);
    rhs = rhs.defined() ? tcore::sub(rhs, product) : tcore::neg(product);
  }
  return rhs.defined() ? tcore::_linalg_solve_triangular(A_p, rhs, upper, unitriangular) : Tensor();
}

namespace {
// s A^-T for s of A's batch: on A's LU factors (getrs), or by linalg.solve on A^T where the formula
// is itself differentiated (the factors have no derivative; torch's error where A is singular)
Tensor scaled_inverse_transpose(const Tensor& s, const Tensor& A, const Tensor& LU, const Tensor& pivots,
                                bool differentiable) {
  const Tensor diagonal = tcore::mul(tcore::unsqueeze(tcore::unsqueeze(s, -1), -1),
                                     tcore::eye(A.sizes()[A.dim() - 1], A.dtype(), std::nullopt, A.device(), std::nullopt));
  return differentiable ? tcore::linalg_solve(mT(A), diagonal, true) : tcore::linalg_lu_solve(LU, pivots, diagonal, true, true);
}

// d det(A) / dA scaled by grad: the cofactors, det(A) A^-T where A is invertible; where a matrix of
// the batch is singular, through the SVD for the whole batch: A = U S Vh, det = det(U) det(Vh)
// prod(S), the cofactors det(U) det(Vh) U diag(product of the other singular values) Vh (torch
// 2.13 gives 0 there unless the backward is differentiated: its inverse of a nudged LU times 0).
Tensor det_cofactors(const Tensor& grad, const Tensor& det, const Tensor& A, const Tensor& LU, const Tensor& pivots,
                     bool differentiable) {
  if (tcore::native::item<bool>(tcore::any(tcore::eq(det, Scalar(0))))) {
    const auto [U, S, Vh] = tcore::_linalg_svd(A, false, true, std::nullopt);
    const Tensor alpha = tcore::mul(tcore::linalg_det(U), tcore::linalg_det(Vh));
    const Tensor others = prod_dim_backward(tcore::mul(grad, alpha), S, Tensor(), -1, false);
    return tcore::matmul(tcore::mul(U, tcore::unsqueeze(others, -2)), Vh);
  }
  return scaled_inverse_transpose(tcore::mul(grad, det), A, LU, pivots, differentiable);
}
}  // namespace

Tensor linalg_det_backward(const Tensor& grad, const Tensor& det, const Tensor& A, const Tensor& LU,
                           const Tensor& pivots) {
  if (!grad.defined()) return Tensor();
  return det_cofactors(grad, det, A, LU, pivots, differentiated({&grad, &A, &det}));
}

// d det = tr(adj(A) dA): det tr(A^-1 dA) on the LU factors where A is invertible, the cofactors'
// inner product with dA where a matrix is singular (torch 2.13: 0 there)
Tensor linalg_det_jvp(const Tensor& A_p, const Tensor& A_t, const Tensor& det, const Tensor& LU,
                      const Tensor& pivots) {
  if (tcore::native::item<bool>(tcore::any(tcore::eq(det, Scalar(0))))) {
    const Tensor cofactors = det_cofactors(tcore::ones_like(det), det, A_p, LU, pivots, true);
    return tcore::sum(tcore::mul(cofactors, A_t), IntArrayRef({-2, -1}), false, std::nullopt);
  }
  return tcore::mul(det, traces(tcore::linalg_lu_solve(LU, pivots, A_t, true, false)));
}

// grad A^-T (inf where A is singular, as torch's; with create_graph torch's error)
Tensor slogdet_backward(const Tensor& grad_logabsdet, const Tensor& A, const Tensor& LU, const Tensor& pivots) {
  if (!grad_logabsdet.defined()) return Tensor();
  return scaled_inverse_transpose(grad_logabsdet, A, LU, pivots, differentiated({&grad_logabsdet, &A}));
}

Tensor slogdet_jvp(const Tensor& A_t, const Tensor& LU, const Tensor& pivots) {
  return traces(tcore::linalg_lu_solve(LU, pivots, A_t, true, false));
}

// gA = sym(L^-T phi(L^T gL) L^-1) and dL = L phi(L^-1 dA L^-T), the inverses as two triangular
// solves each (linalg_inv of L was a general LU inverse: cholesky's backward at n = 512 1.16x torch's)
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L) {
  if (!grad.defined()) return Tensor();
  const Tensor lower = upper ? mT(L) : L;
  const Tensor g = upper ? mT(grad) : grad;
  const Tensor x = tcore::linalg_solve_triangular(mT(lower), phi(tcore::matmul(mT(lower), g)), true, true, false);
  const Tensor gA = tcore::linalg_solve_triangular(lower, x, false, false, false);  // x L^-1
  return tcore::mul(tcore::add(gA, mT(gA)), Scalar(0.5));
}

Tensor cholesky_jvp(const Tensor& A_t, const Tensor& L, bool upper) {
  const Tensor lower = upper ? mT(L) : L;
  const Tensor y = tcore::linalg_solve_triangular(lower, A_t, false, true, false);  // L^-1 dA
  const Tensor z = tcore::linalg_solve_triangular(mT(lower), y, true, false, false);  // (L^-1 dA) L^-T
  const Tensor dL = tcore::matmul(lower, phi(z));
  return upper ? mT(dL) : dL;
}

namespace {
// the identity matrix of L's last size, and E_ij = L_j - L_i with 1 on the diagonal (a divisor)
Tensor identity_like(const Tensor& L) {
  return tcore::eye(L.sizes()[L.dim() - 1], L.dtype(), std::nullopt, L.device(), std::nullopt);
}
Tensor eigen_gaps(const Tensor& L, const Tensor& identity) {
  return tcore::add(tcore::sub(tcore::unsqueeze(L, -2), tcore::unsqueeze(L, -1)), identity);
}
}  // namespace

Tensor linalg_eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  if (!gL.defined() && !gV.defined()) return Tensor();
  const Tensor identity = identity_like(L);
  Tensor inner;
  if (gV.defined()) {
    const Tensor VtgV = tcore::matmul(mT(V), gV);
    inner = tcore::div(tcore::mul(tcore::sub(VtgV, mT(VtgV)), Scalar(0.5)), eigen_gaps(L, identity));
  }
  if (gL.defined()) {
    const Tensor diag = tcore::mul(identity, tcore::unsqueeze(gL, -2));
    inner = inner.defined() ? tcore::add(inner, diag) : diag;
  }
  return tcore::matmul(V, tcore::matmul(inner, mT(V)));
}

Tensor linalg_eigh_jvp_values(const Tensor& A_t, const Tensor& V) {
  return tcore::diagonal(tcore::matmul(mT(V), tcore::matmul(A_t, V)), 0, -2, -1);
}

Tensor linalg_eigh_jvp_vectors(const Tensor& A_t, const Tensor& L, const Tensor& V) {
  const Tensor identity = identity_like(L);
  const Tensor dP = tcore::matmul(mT(V), tcore::matmul(A_t, V));
  const Tensor off = tcore::mul(tcore::div(dP, eigen_gaps(L, identity)), tcore::neg(tcore::sub(identity, Scalar(1))));
  return tcore::matmul(V, off);
}

namespace {
// X R^-T and X R^-1 for an upper triangular R, by triangular solves of the transposed systems
Tensor times_inverse_transpose(const Tensor& X, const Tensor& R) {
  return mT(tcore::_linalg_solve_triangular(R, mT(X), true, false));
}
Tensor times_inverse(const Tensor& X, const Tensor& R) {
  return mT(tcore::_linalg_solve_triangular(mT(R), mT(X), false, false));
}
// the symmetric matrix whose lower triangle is M's
Tensor copyltu(const Tensor& M) { return tcore::add(tcore::tril(M), mT(tcore::tril(M, -1))); }
// Omega = lower(C) - lower(C)^T (strict), C - Omega = the upper factor's part
Tensor strict_skew(const Tensor& C) {
  const Tensor low = tcore::tril(C, -1);
  return tcore::sub(low, mT(low));
}
void check_qr_differentiable(int64_t m, int64_t n, std::string_view mode) {
  TCORE_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  TCORE_CHECK(mode != "complete" || m <= n,
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
}
// A = Q R with R square (m >= n, or the first m columns when m < n): (gQ + Q copyltu(M)) R^-T with
// M = R gR^T - gQ^T Q (either gradient may be undefined: zero)
Tensor qr_square_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  Tensor M;
  if (gR.defined()) M = tcore::matmul(R, mT(gR));
  if (gQ.defined()) M = M.defined() ? tcore::sub(M, tcore::matmul(mT(gQ), Q)) : tcore::neg(tcore::matmul(mT(gQ), Q));
  Tensor b = tcore::matmul(Q, copyltu(M));
  if (gQ.defined()) b = tcore::add(gQ, b);
  return times_inverse_transpose(b, R);
}
}  // namespace

Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, std::string_view mode) {
  if (!gQ.defined() && !gR.defined()) return Tensor();
  const int64_t m = Q.sizes()[Q.dim() - 2], n = R.sizes()[R.dim() - 1];
  check_qr_differentiable(m, n, mode);
  if (m >= n) return qr_square_backward(gQ, gR, Q, R);
  // A = [X | Y] = Q [U | V]: Y's gradient Q gV, and X's the square one with gQ + Y gV^T
  const Tensor U = tcore::narrow(R, -1, 0, m), V = tcore::narrow(R, -1, m, n - m);
  const Tensor gU = gR.defined() ? tcore::narrow(gR, -1, 0, m) : Tensor();
  const Tensor gV = gR.defined() ? tcore::narrow(gR, -1, m, n - m) : Tensor();
  Tensor gQ_all = gQ;
  if (gV.defined()) {
    const Tensor YgVt = tcore::matmul(tcore::matmul(Q, V), mT(gV));
    gQ_all = gQ.defined() ? tcore::add(gQ, YgVt) : YgVt;
  }
  const Tensor gX = qr_square_backward(gQ_all, gU, Q, U);
  const Tensor gY = gV.defined() ? tcore::matmul(Q, gV) : tcore::zeros_like(V);
  return tcore::cat({gX, gY}, -1);
}

// Tangents: with C = Q^T dX U^-1 (U = R, or its first m columns) and Omega its strict lower part
// less that part's transpose, dU = (C - Omega) U and dQ = Q Omega + (I - Q Q^T) dX U^-1; when
// m < n, dV = Q^T dY - Omega V.
std::tuple<Tensor, Tensor> linalg_qr_jvp(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode) {
  const int64_t m = Q.sizes()[Q.dim() - 2], n = R.sizes()[R.dim() - 1];
  check_qr_differentiable(m, n, mode);
  const bool wide = m < n;
  const Tensor U = wide ? tcore::narrow(R, -1, 0, m) : R;
  const Tensor dX = wide ? tcore::narrow(A_t, -1, 0, m) : A_t;
  const Tensor B = times_inverse(dX, U), C = tcore::matmul(mT(Q), B), omega = strict_skew(C);
  const Tensor upper = tcore::sub(C, omega);
  Tensor dR = tcore::matmul(upper, U);
  const Tensor dQ = wide ? tcore::matmul(Q, omega) : tcore::sub(B, tcore::matmul(Q, upper));
  if (wide) {
    const Tensor V = tcore::narrow(R, -1, m, n - m), dY = tcore::narrow(A_t, -1, m, n - m);
    dR = tcore::cat({dR, tcore::sub(tcore::matmul(mT(Q), dY), tcore::matmul(omega, V))}, -1);
  }
  return {dQ, dR};
}
Tensor linalg_qr_jvp_Q(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode) {
  return std::get<0>(linalg_qr_jvp(A_t, Q, R, mode));
}
Tensor linalg_qr_jvp_R(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode) {
  return std::get<1>(linalg_qr_jvp(A_t, Q, R, mode));
}

// X = A^+ (n x m): dX = -X dA X + X X^T dA^T (I - A X) + (I - X A) dA^T X^T X (Golub and Pereyra;
// where A's rank stays), and by transposing each term the gradient of <G, X>.
Tensor pinv_backward(const Tensor& G, const Tensor& X, const Tensor& A) {
  if (!G.defined()) return Tensor();
  const Tensor Gt = mT(G), Xt = mT(X);
  const Tensor first = tcore::neg(tcore::matmul(tcore::matmul(Xt, G), Xt));
  // (I - A X) G^T X X^T and X^T X G^T (I - X A), the identities not formed
  const Tensor GtXXt = tcore::matmul(Gt, tcore::matmul(X, Xt));
  const Tensor second = tcore::sub(GtXXt, tcore::matmul(A, tcore::matmul(X, GtXXt)));
  const Tensor XtXGt = tcore::matmul(tcore::matmul(Xt, X), Gt);
  const Tensor third = tcore::sub(XtXGt, tcore::matmul(tcore::matmul(XtXGt, X), A));
  return tcore::add(first, tcore::add(second, third));
}

Tensor pinv_jvp(const Tensor& A, const Tensor& X, const Tensor& dA) {
  const Tensor dAt = mT(dA), Xt = mT(X);
  const Tensor first = tcore::neg(tcore::matmul(tcore::matmul(X, dA), X));
  const Tensor XXtdAt = tcore::matmul(tcore::matmul(X, Xt), dAt);
  const Tensor second = tcore::sub(XXtdAt, tcore::matmul(tcore::matmul(XXtdAt, A), X));
  const Tensor dAtXtX = tcore::matmul(dAt, tcore::matmul(Xt, X));
  const Tensor third = tcore::sub(dAtXtX, tcore::matmul(X, tcore::matmul(A, dAtXtX)));
  return tcore::add(first, tcore::add(second, third));
}

namespace {
// The row orders of A = P L U's permutation from LAPACK's pivots (*, k) of A's m rows (row i
// swapped with row pivots[i] - 1, in turn): (P^T x)[i] = x[transposed[i]] and (P x)[i] = x[plain[i]],
// int64 (*, m), so that P's products are gathers, O(m n), not matrix products.
struct RowOrders {
  Tensor transposed, plain;
};
RowOrders row_orders(const Tensor& pivots, int64_t m) {
  std::vector<int64_t> shape(pivots.sizes().begin(), pivots.sizes().end() - 1);
  shape.push_back(m);
  const Tensor piv = native::contiguous_copy(pivots);
  Tensor transposed = tcore::empty(shape, ScalarType::Long, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  Tensor plain = tcore::empty(shape, ScalarType::Long, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  const int64_t k = pivots.sizes()[pivots.dim() - 1], count = m == 0 ? 0 : transposed.numel() / m;
  const int* p = piv.data_ptr<int>();
  int64_t* t = transposed.data_ptr<int64_t>();
  int64_t* q = plain.data_ptr<int64_t>();
  for (int64_t b = 0; b < count; ++b, p += k, t += m, q += m) {
    for (int64_t i = 0; i < m; ++i) t[i] = i;
    for (int64_t i = 0; i < k; ++i) std::swap(t[i], t[p[i] - 1]);
    for (int64_t i = 0; i < m; ++i) q[t[i]] = i;
  }
  return {transposed, plain};
}
// x's rows (dim -2) in the given order (*, m), the batches broadcast: gather, differentiable
Tensor take_rows(const Tensor& x, const Tensor& order) {
  std::vector<int64_t> shape = native::broadcast_shapes(IntArrayRef(order.sizes().data(), order.sizes().size() - 1),
                                                IntArrayRef(x.sizes().data(), x.sizes().size() - 2));
  std::vector<int64_t> x_shape = shape;
  x_shape.insert(x_shape.end(), x.sizes().end() - 2, x.sizes().end());
  shape.insert(shape.end(), {order.sizes()[order.dim() - 1], x.sizes()[x.dim() - 1]});
  return tcore::gather(tcore::expand(x, x_shape), -2, tcore::expand(tcore::unsqueeze(order, -1), shape), false);
}
// the unit lower L (m x k) and the upper U (k x n) packed in LU: lu_unpack's, without P
std::pair<Tensor, Tensor> lu_triangles(const Tensor& LU, const Tensor& pivots) {
  const auto [P, L, U] = tcore::lu_unpack(LU, pivots, true, false);
  return {L, U};
}

// X = L^-1 Y, L unit lower triangular; Y U^-1 and Y U^-T for U upper triangular
Tensor unit_lower_solve(const Tensor& L, const Tensor& Y) { return tcore::_linalg_solve_triangular(L, Y, false, true); }
Tensor right_upper_solve(const Tensor& Y, const Tensor& U) { return times_inverse(Y, U); }
// the gradient of a square A = L U (no permutation) from those of L and U:
// L^-T [tril(L^T gL, -1) + triu(gU U^T)] U^-T
Tensor lu_square_backward(const Tensor& gL, const Tensor& gU, const Tensor& L, const Tensor& U) {
  Tensor phi;
  if (gL.defined()) phi = tcore::tril(tcore::matmul(mT(L), gL), -1);
  if (gU.defined()) {
    const Tensor upper = tcore::triu(tcore::matmul(gU, mT(U)));
    phi = phi.defined() ? tcore::add(phi, upper) : upper;
  }
  const Tensor x = tcore::_linalg_solve_triangular(mT(L), phi, true, true);  // L^-T phi
  return times_inverse_transpose(x, U);
}
}  // namespace

// A = P L U, L (m x k) and U (k x n): the square part as lu_square_backward; when m > n the rows
// below (A2 = L2 U) give gA2 = gL2 U^-T and take L2^T gA2 from U's gradient; when m < n the columns
// past m (A2 = L U2) give gA2 = L^-T gU2 and take gA2 U2^T from L's.
Tensor linalg_lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& pivots, const Tensor& L, const Tensor& U) {
  if (!gL.defined() && !gU.defined()) return Tensor();
  const int64_t m = L.sizes()[L.dim() - 2], n = U.sizes()[U.dim() - 1];
  Tensor g;
  if (m == n) {
    g = lu_square_backward(gL, gU, L, U);
  } else if (m > n) {
    const Tensor L1 = tcore::narrow(L, -2, 0, n), L2 = tcore::narrow(L, -2, n, m - n);
    const Tensor gL1 = gL.defined() ? tcore::narrow(gL, -2, 0, n) : Tensor();
    const Tensor gA2 = gL.defined() ? times_inverse_transpose(tcore::narrow(gL, -2, n, m - n), U)
                                    : tcore::zeros_like(L2);
    const Tensor taken = tcore::matmul(mT(L2), gA2);
    const Tensor gU1 = gU.defined() ? tcore::sub(gU, taken) : tcore::neg(taken);
    g = tcore::cat({lu_square_backward(gL1, gU1, L1, U), gA2}, -2);
  } else {
    const Tensor U1 = tcore::narrow(U, -1, 0, m), U2 = tcore::narrow(U, -1, m, n - m);
    const Tensor gU1 = gU.defined() ? tcore::narrow(gU, -1, 0, m) : Tensor();
    const Tensor gA2 = gU.defined() ? tcore::_linalg_solve_triangular(mT(L), tcore::narrow(gU, -1, m, n - m), true, true)
                                    : tcore::zeros_like(U2);
    const Tensor taken = tcore::matmul(gA2, mT(U2));
    const Tensor gL1 = gL.defined() ? tcore::sub(gL, taken) : tcore::neg(taken);
    g = tcore::cat({lu_square_backward(gL1, gU1, L, U1), gA2}, -1);
  }
  return take_rows(g, row_orders(pivots, m).plain);  // P g
}

// lu_factor_ex's LU packs L's strict lower part and U: their gradients are grad's two triangles
Tensor lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots) {
  if (!grad.defined()) return Tensor();
  const auto [L, U] = lu_triangles(LU, pivots);
  const int64_t m = LU.sizes()[LU.dim() - 2], n = LU.sizes()[LU.dim() - 1], k = std::min(m, n);
  return linalg_lu_backward(tcore::tril(tcore::narrow(grad, -1, 0, k), -1), tcore::triu(tcore::narrow(grad, -2, 0, k)),
                            pivots, L, U);
}

// dA' = P^T dA; square part: X = L1^-1 dA1 U1^-1, dL1 = L1 tril(X, -1), dU1 = triu(X) U1; the rows
// below: dL2 = (dA2 - L2 dU) U^-1; the columns past: dU2 = L^-1 (dA2 - dL U2). Packed as LU is.
Tensor lu_factor_ex_jvp(const Tensor& A_t, const Tensor& LU, const Tensor& pivots) {
  const auto [L, U] = lu_triangles(LU, pivots);
  const int64_t m = LU.sizes()[LU.dim() - 2], n = LU.sizes()[LU.dim() - 1], k = std::min(m, n);
  const Tensor dA = take_rows(A_t, row_orders(pivots, m).transposed);  // P^T dA
  const Tensor L1 = tcore::narrow(L, -2, 0, k), U1 = tcore::narrow(U, -1, 0, k);
  const Tensor X = right_upper_solve(unit_lower_solve(L1, tcore::narrow(tcore::narrow(dA, -2, 0, k), -1, 0, k)), U1);
  Tensor dL = tcore::matmul(L1, tcore::tril(X, -1)), dU = tcore::matmul(tcore::triu(X), U1);
  if (m > n) {
    const Tensor L2 = tcore::narrow(L, -2, n, m - n);
    const Tensor dL2 = right_upper_solve(tcore::sub(tcore::narrow(dA, -2, n, m - n), tcore::matmul(L2, dU)), U);
    dL = tcore::cat({dL, dL2}, -2);
  } else if (m < n) {
    const Tensor U2 = tcore::narrow(U, -1, m, n - m);
    const Tensor dU2 = unit_lower_solve(L, tcore::sub(tcore::narrow(dA, -1, m, n - m), tcore::matmul(dL, U2)));
    dU = tcore::cat({dU, dU2}, -1);
  }
  // packed: dL's strict lower part (m x k) and dU (k x n), each zero-padded to m x n
  Tensor lower = tcore::tril(dL, -1), upper = dU;
  if (m > n) upper = tcore::cat({upper, tcore::zeros_like(tcore::narrow(dL, -2, 0, m - n))}, -2);
  if (m < n) lower = tcore::cat({lower, tcore::zeros_like(tcore::narrow(dU, -1, 0, n - m))}, -1);
  return tcore::add(lower, upper);
}

// X = op(A)^-1 B (left) or B op(A)^-1, A = P L U: op(A)'s gradient -op(A)^-T G X^T (left) or
// -X^T G op(A)^-T, transposed back when op is the transpose, then through A = P L U to LU's
// triangles: tril(P^T gA U^T, -1) + triu(L^T P^T gA).
Tensor linalg_lu_solve_LU(const Tensor& grad, const Tensor& LU, const Tensor& pivots, const Tensor& X, bool left,
                          bool adjoint) {
  if (!grad.defined()) return Tensor();
  const Tensor gB = tcore::linalg_lu_solve(LU, pivots, grad, left, !adjoint);
  const Tensor g_op = tcore::neg(left ? tcore::matmul(gB, mT(X)) : tcore::matmul(mT(X), gB));
  const Tensor gA = take_rows(adjoint ? mT(g_op) : g_op, row_orders(pivots, LU.sizes()[LU.dim() - 2]).transposed);  // P^T gA
  const auto [L, U] = lu_triangles(LU, pivots);
  return tcore::add(tcore::tril(tcore::matmul(gA, mT(U)), -1), tcore::triu(tcore::matmul(mT(L), gA)));
}

// dX = op(A)^-1 (dB - op(dA) X) (left) or (dB - X op(dA)) op(A)^-1, dA = P (dL U + L dU) with dL,
// dU LU_t's triangles
Tensor linalg_lu_solve_jvp(const Tensor& X, const Tensor& LU, const Tensor& pivots, const Tensor& LU_t,
                           const Tensor& B_t, bool left, bool adjoint) {
  Tensor rhs = B_t;
  if (LU_t.defined()) {
    const auto [L, U] = lu_triangles(LU, pivots);
    const Tensor dA = take_rows(tcore::add(tcore::matmul(tcore::tril(LU_t, -1), U), tcore::matmul(L, tcore::triu(LU_t))),
                                row_orders(pivots, LU.sizes()[LU.dim() - 2]).plain);  // P (dL U + L dU)
    const Tensor d_op = adjoint ? mT(dA) : dA;
    const Tensor product = left ? tcore::matmul(d_op, X) : tcore::matmul(X, d_op);
    rhs = rhs.defined() ? tcore::sub(rhs, product) : tcore::neg(product);
  }
  return rhs.defined() ? tcore::linalg_lu_solve(LU, pivots, rhs, left, adjoint) : Tensor();
}

namespace {
// lstsq's B as a matrix: a vector right-hand side (B.dim() == A.dim() - 1) gets its column dim
bool lstsq_vector(const Tensor& A, const Tensor& B) { return B.dim() == A.dim() - 1; }
Tensor as_columns(const Tensor& A, const Tensor& x) { return lstsq_vector(A, x) ? tcore::unsqueeze(x, -1) : x; }
}  // namespace

// X = A^+ B (the least-squares solution, torch's way through pinv), and the squared residuals
// L_j = |A x_j - b_j|^2, whose derivative needs not X's (X is where it is smallest): 2 r x_j^T for
// A, -2 r for b, r = A X - B.
std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& gX_, const Tensor& gL, const Tensor& A, const Tensor& B_,
                                                 const Tensor& X_, const std::array<bool, 2>& grad_input_mask) {
  const bool residuals = gL.defined() && gL.numel() > 0;
  if (!gX_.defined() && !residuals) return {};
  const Tensor B = as_columns(A, B_), X = as_columns(A, X_);
  Tensor gA, gB;
  if (gX_.defined()) {
    const Tensor gX = as_columns(A, gX_), pinvA = tcore::linalg_pinv(A, std::optional<Tensor>(), std::optional<Tensor>(), false);
    if (grad_input_mask[0]) gA = pinv_backward(tcore::matmul(gX, mT(B)), pinvA, A);
    if (grad_input_mask[1]) gB = tcore::matmul(mT(pinvA), gX);
  }
  if (residuals) {
    const Tensor r2 = tcore::mul(tcore::sub(tcore::matmul(A, X), B), tcore::mul(tcore::unsqueeze(gL, -2), Scalar(2)));
    if (grad_input_mask[0]) {
      const Tensor part = tcore::matmul(r2, mT(X));
      gA = gA.defined() ? tcore::add(gA, part) : part;
    }
    if (grad_input_mask[1]) gB = gB.defined() ? tcore::sub(gB, r2) : tcore::neg(r2);
  }
  if (gB.defined() && lstsq_vector(A, B_)) gB = tcore::squeeze(gB, -1);
  return {gA, gB};
}

Tensor linalg_lstsq_solution_jvp(const Tensor& A, const Tensor& B_, const Tensor& dA, const Tensor& dB_) {
  const Tensor pinvA = tcore::linalg_pinv(A, std::optional<Tensor>(), std::optional<Tensor>(), false);
  Tensor dX;
  if (dA.defined()) dX = tcore::matmul(pinv_jvp(A, pinvA, dA), as_columns(A, B_));
  if (dB_.defined()) {
    const Tensor part = tcore::matmul(pinvA, as_columns(A, dB_));
    dX = dX.defined() ? tcore::add(dX, part) : part;
  }
  return dX.defined() && lstsq_vector(A, B_) ? tcore::squeeze(dX, -1) : dX;
}

Tensor linalg_lstsq_residuals_jvp(const Tensor& A, const Tensor& B_, const Tensor& dA, const Tensor& dB_,
                                  const Tensor& X_, const Tensor& L) {
  if (L.numel() == 0) return tcore::zeros_like(L);
  const Tensor B = as_columns(A, B_), X = as_columns(A, X_);
  const Tensor r = tcore::sub(tcore::matmul(A, X), B);
  Tensor dr;
  if (dA.defined()) dr = tcore::matmul(dA, X);
  if (dB_.defined()) dr = dr.defined() ? tcore::sub(dr, as_columns(A, dB_)) : tcore::neg(as_columns(A, dB_));
  if (!dr.defined()) return Tensor();
  return tcore::mul(tcore::sum(tcore::mul(r, dr), std::vector<int64_t>{-2}, false, std::nullopt), Scalar(2));
}

Tensor svd_backward(const Tensor& gU_full, const Tensor& gS, const Tensor& gVh_full, const Tensor& U_full,
                    const Tensor& S, const Tensor& Vh_full, bool full_matrices) {
  const int64_t k = S.sizes()[S.dim() - 1];
  const auto reduce = [&](const Tensor& t, int64_t dim) { return full_matrices && t.defined() ? tcore::narrow(t, dim, 0, k) : t; };
  const Tensor U = reduce(U_full, -1), Vh = reduce(Vh_full, -2), gU = reduce(gU_full, -1), gVh = reduce(gVh_full, -2);
  if (!gS.defined() && !gU.defined() && !gVh.defined()) return Tensor();
  const int64_t m = U.sizes()[U.dim() - 2], n = Vh.sizes()[Vh.dim() - 1];
  if (!gU.defined() && !gVh.defined())  // the singular values only
    return m >= n ? tcore::matmul(U, tcore::mul(tcore::unsqueeze(gS, -1), Vh))
                  : tcore::matmul(tcore::mul(U, tcore::unsqueeze(gS, -2)), Vh);
  const auto skew = [](const Tensor& x) { return tcore::sub(x, mT(x)); };
  const Tensor S2 = tcore::mul(S, S);
  const Tensor E = tcore::add(tcore::sub(tcore::unsqueeze(S2, -2), tcore::unsqueeze(S2, -1)), identity_like(S));
  const Tensor gV = gVh.defined() ? mT(gVh) : Tensor();
  Tensor gA;
  if (gU.defined() && gV.defined()) {
    const Tensor UtgU = skew(tcore::matmul(mT(U), gU)), VtgV = skew(tcore::matmul(Vh, gV));
    gA = tcore::div(tcore::add(tcore::mul(UtgU, tcore::unsqueeze(S, -2)), tcore::mul(tcore::unsqueeze(S, -1), VtgV)), E);
  } else if (gU.defined()) {
    gA = tcore::mul(tcore::div(skew(tcore::matmul(mT(U), gU)), E), tcore::unsqueeze(S, -2));
  } else {
    gA = tcore::mul(tcore::unsqueeze(S, -1), tcore::div(skew(tcore::matmul(Vh, gV)), E));
  }
  if (gS.defined()) gA = tcore::add(gA, tcore::mul(identity_like(S), tcore::unsqueeze(gS, -2)));
  if (m > n && gU.defined()) {  // U (gA + U^T (I - U U^T) gU S^-1) Vh
    gA = tcore::matmul(U, gA);
    const Tensor gUSinv = tcore::div(gU, tcore::unsqueeze(S, -2));
    gA = tcore::sub(tcore::add(gA, gUSinv), tcore::matmul(U, tcore::matmul(mT(U), gUSinv)));
    return tcore::matmul(gA, Vh);
  }
  if (m < n && gV.defined()) {  // U (gA Vh + S^-1 gVh (I - V Vh))
    gA = tcore::matmul(gA, Vh);
    const Tensor SinvgVh = tcore::div(gVh, tcore::unsqueeze(S, -1));
    gA = tcore::sub(tcore::add(gA, SinvgVh), tcore::matmul(tcore::matmul(SinvgVh, mT(Vh)), Vh));
    return tcore::matmul(U, gA);
  }
  return m >= n ? tcore::matmul(U, tcore::matmul(gA, Vh)) : tcore::matmul(tcore::matmul(U, gA), Vh);
}

namespace {
// where t > 0 (t < 0): log|t|, else the dtype's lowest finite value (a zero term, without -inf's NaNs)
Tensor log_of_part(const Tensor& t, bool positive) {
  const double lowest = t.dtype() == ScalarType::Double ? std::numeric_limits<double>::lowest()
                                                        : static_cast<double>(std::numeric_limits<float>::lowest());
  const Tensor part = positive ? tcore::gt(t, Scalar(0)) : tcore::lt(t, Scalar(0));
  return tcore::where(part, tcore::log(tcore::abs(t)), Scalar(lowest));
}
Tensor reversed_logcumsumexp(const Tensor& x, int64_t dim) {
  return tcore::flip(tcore::logcumsumexp(tcore::flip(x, IntArrayRef({dim})), dim), IntArrayRef({dim}));
}
}  // namespace

// torch's: d x_j = sum_{i >= j} g_i e^(x_j - y_i), g's positive and negative parts each through a
// reversed logcumsumexp of log|g| - y (nothing overflows); differentiable again
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  if (!grad.defined() || grad.numel() == 0) return grad;
  if (self.dim() == 0) return grad;
  const int64_t d = wrap_dim(dim, self.dim());
  const auto part = [&](bool positive) {
    return tcore::exp(tcore::add(reversed_logcumsumexp(tcore::sub(log_of_part(grad, positive), result), d), self));
  };
  return tcore::sub(part(true), part(false));
}

// d y_i = sum_{j <= i} t_j e^(x_j - y_i): t's positive and negative parts through logcumsumexp of
// x + log|t| (exact where a prefix lies far below the maximum; torch's version sets those to 0)
Tensor logcumsumexp_jvp(const Tensor& self_p, const Tensor& self_t, const Tensor& result, int64_t dim) {
  if (self_p.dim() == 0) return self_t;
  const int64_t d = wrap_dim(dim, self_p.dim());
  const auto part = [&](bool positive) {
    return tcore::exp(tcore::sub(tcore::logcumsumexp(tcore::add(self_p, log_of_part(self_t, positive)), d), result));
  };
  return tcore::sub(part(true), part(false));
}

}  // namespace tcore::autograd::manual
