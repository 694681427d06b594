// norm, embedding, nll_loss, cross_entropy, dropout, batch_norm and layer_norm in terms of other
// operators. norm and embedding are CompositeExplicitAutograd (their own formulas:
// norm's gradient is 0 at a zero vector, embedding skips padding_idx); the others
// are CompositeImplicitAutograd: autograd records what they call.
#include <cmath>
#include <limits>

#include <tcore/ops/abs.h>
#include <tcore/ops/gt.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/isfinite.h>
#include <tcore/ops/isinf.h>
#include <tcore/ops/add.h>
#include <tcore/ops/amax.h>
#include <tcore/ops/amin.h>
#include <tcore/ops/batch_norm_native.h>
#include <tcore/ops/clamp.h>
#include <tcore/ops/clone.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/_native_batch_norm_legit.h>
#include <tcore/ops/_native_batch_norm_legit_functional.h>
#include <tcore/ops/_native_batch_norm_legit_no_training.h>
#include <tcore/ops/cross_entropy_native.h>
#include <tcore/ops/hardtanh_native.h>
#include <tcore/ops/div.h>
#include <tcore/ops/dropout_native.h>
#include <tcore/ops/embedding_native.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/_square_sum.h>
#include <tcore/ops/full.h>
#include <tcore/ops/gather.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/index_select.h>
#include <tcore/ops/layer_norm_native.h>
#include <tcore/ops/native_layer_norm.h>
#include <tcore/ops/log_softmax.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/logical_or.h>
#include <tcore/ops/any.h>
#include <tcore/ops/mean.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/ne.h>
#include <tcore/ops/neg.h>
#include <tcore/ops/nll_loss_native.h>
#include <tcore/ops/norm_native.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/pow.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/rsqrt.h>
#include <tcore/ops/sqrt.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/uniform.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/var.h>
#include <tcore/ops/view.h>
#include <tcore/ops/ones_like.h>
#include <tcore/ops/to.h>
#include <tcore/ops/where.h>
#include <tcore/ops/zeros_like.h>

#include "native/BatchNorm.h"
#include "native/Loss.h"
#include "tcore/core/Dispatch.h"
#include "native/TensorUtils.h"

namespace tcore::native {
// ------------------------------------------------------------------ norm (vector norms)
namespace {
// The p-norm (0 < p < inf) over dims once more as s * ||x / s||, s the largest |x| over them (1
// where that is 0 or not finite), where `naive` is inf: |x|^p overflowed though the norm may not
// (float32 values past 1.8e19 at p = 2), as LAPACK's nrm2 scales. Only then, and on the CPU
// (deciding costs a device's sync): the common case pays a test of the result. torch's (and
// numpy's) float32 norm of [1e30, 2e30] is inf; this one 2.24e30. (Underflow, a norm of values
// below 1e-23 that comes out 0, is left as torch leaves it: telling those zeros from the norms of
// zero rows, padding's, would read the input once more whenever a row is zero.)
Tensor rescaled_where_out_of_range(const Tensor& naive, const Tensor& self, double order, IntArrayRef dim,
                                   bool keepdim) {
  if (!self.device().is_cpu() || self.numel() == 0) return naive;
  const Tensor off = tcore::isinf(naive);
  if (!item<bool>(tcore::any(off))) return naive;
  const OptionalIntArrayRef dims = dim.empty() ? OptionalIntArrayRef() : OptionalIntArrayRef(dim);
  const Tensor a = tcore::abs(self), s = tcore::amax(a, dim, true);
  const Tensor safe = tcore::where(tcore::logical_and(tcore::gt(s, Scalar(0)), tcore::isfinite(s)), s, tcore::ones_like(s));
  const Tensor r = tcore::div(a, safe);
  const Tensor inner = order == 2 ? tcore::sqrt(tcore::sum(tcore::mul(r, r), dims, keepdim))
                                  : tcore::pow(tcore::sum(tcore::pow(r, Scalar(order)), dims, keepdim), Scalar(1.0 / order));
  return tcore::where(off, tcore::mul(inner, tcore::reshape(safe, inner.sizes())), naive);
}
}  // namespace

Tensor norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "linalg.vector_norm: Expected a floating point tensor as input. Got ",
                   to_string(self.dtype()));
  const double order = p ? p->to_double() : 2.0;
  const OptionalIntArrayRef dims = dim.empty() ? OptionalIntArrayRef() : OptionalIntArrayRef(dim);
  if (order == 0) return tcore::sum(tcore::ne(self, Scalar(0)), dims, keepdim, self.dtype());
  if (order == 2) {  // (no |x| pass; on the CPU no tensor of squares: one pass over self)
    const Tensor naive = self.device().is_cpu()
                             ? tcore::to(tcore::sqrt(tcore::_square_sum(self, dims, keepdim)), self.dtype())
                             : tcore::sqrt(tcore::sum(tcore::mul(self, self), dims, keepdim));
    return rescaled_where_out_of_range(naive, self, order, dim, keepdim);
  }
  const Tensor a = tcore::abs(self);
  if (std::isinf(order)) {
    TCORE_CHECK_INDEX(self.numel() > 0 || !dim.empty(), "linalg.vector_norm cannot compute the ", order,
                      " norm on an empty tensor because the operation does not have an identity");
    return order > 0 ? tcore::amax(a, dim, keepdim) : tcore::amin(a, dim, keepdim);
  }
  if (order == 1) return tcore::sum(a, dims, keepdim);
  const Tensor naive = tcore::pow(tcore::sum(tcore::pow(a, Scalar(order)), dims, keepdim), Scalar(1.0 / order));
  return order > 0 ? rescaled_where_out_of_range(naive, self, order, dim, keepdim) : naive;
}

Tensor norm(const Tensor& self, const Scalar& p) { return norm(self, std::optional<Scalar>(p), {}, false); }

// ------------------------------------------------------------------ embedding
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  TCORE_CHECK_VALUE(!sparse, "embedding: sparse gradients are not supported");
  TCORE_CHECK_VALUE(weight.dim() == 2, "'weight' must be 2-D, got shape ", shape_str(weight.sizes()));
  TCORE_CHECK_TYPE(indices.dtype() == ScalarType::Long || indices.dtype() == ScalarType::Int,
                   "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
                   "but got ", to_string(indices.dtype()), " instead");
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(weight.sizes()[1]);
  const Tensor flat = tcore::reshape(indices.dtype() == ScalarType::Long ? indices : cast(indices, ScalarType::Long),
                                     {-1});
  return tcore::view(tcore::index_select(weight, 0, flat), shape);
}

// ------------------------------------------------------------------ nll_loss, cross_entropy
namespace {

// (N, C, d1, ...) -> (N * d1 * ..., C) and the target to match; (C) -> (1, C).
std::pair<Tensor, Tensor> flatten_classes(const Tensor& self, const Tensor& target, const char* op) {
  TCORE_CHECK_VALUE(self.dim() >= 1, op, ": input tensor should be 1D or more, got ", shape_str(self.sizes()));
  if (self.dim() == 1) {
    TCORE_CHECK_VALUE(target.dim() == 0, op, ": 1D input expects a 0D target, got target of shape ",
                      shape_str(target.sizes()));
    return {tcore::unsqueeze(self, 0), tcore::reshape(target, {1})};
  }
  TCORE_CHECK_VALUE(target.dim() == self.dim() - 1, op, ": expected target of shape ", shape_str(self.sizes()),
                    " without the class dim, got ", shape_str(target.sizes()));
  TCORE_CHECK_VALUE(self.sizes()[0] == target.sizes()[0], "Expected input batch_size (", self.sizes()[0],
                    ") to match target batch_size (", target.sizes()[0], ").");
  for (int64_t d = 2; d < self.dim(); ++d) {
    TCORE_CHECK_VALUE(self.sizes()[d] == target.sizes()[d - 1], op, ": input ", shape_str(self.sizes()),
                      " and target ", shape_str(target.sizes()), " do not match");
  }
  if (self.dim() == 2) return {self, target};
  std::vector<int64_t> order{0};
  for (int64_t d = 2; d < self.dim(); ++d) order.push_back(d);
  order.push_back(1);
  return {tcore::reshape(tcore::permute(self, order), {-1, self.sizes()[1]}), tcore::reshape(target, {-1})};
}

struct Picked {
  Tensor losses;   // per sample, weighted, 0 where ignored
  Tensor weights;  // per sample: the class weight, 0 where ignored
};

Picked pick(const Tensor& logp, const Tensor& target, const std::optional<Tensor>& weight, int64_t ignore_index,
            const char* op) {
  TCORE_CHECK_TYPE(target.dtype() == ScalarType::Long, op, ": expected target of dtype int64 (class indices), got ",
                   to_string(target.dtype()));
  const int64_t classes = logp.sizes()[1];
  const Tensor valid = tcore::ne(target, Scalar(ignore_index));
  const Tensor safe = tcore::where(valid, target, tcore::zeros_like(target));
  if (safe.numel() > 0) {
    const Tensor outside = tcore::logical_or(tcore::lt(safe, Scalar(0)), tcore::ge(safe, Scalar(classes)));
    TCORE_CHECK_INDEX(!item<bool>(tcore::any(outside)), op, ": Target ",
                      item<int64_t>(tcore::amax(tcore::where(
                          outside, safe, tcore::full({}, std::numeric_limits<int64_t>::min(), ScalarType::Long)))),
                      " is out of bounds (", classes, " classes).");
  }
  if (weight) {
    TCORE_CHECK_VALUE(weight->dim() == 1 && weight->numel() == classes, op, ": weight tensor should be defined either "
                      "for all ", classes, " classes or no classes but got weight tensor of shape: ",
                      shape_str(weight->sizes()));
    TCORE_CHECK_TYPE(weight->dtype() == logp.dtype(), "expected scalar type ", to_string(logp.dtype()),
                     " but found ", to_string(weight->dtype()));
  }
  const Tensor chosen = tcore::squeeze(tcore::gather(logp, 1, tcore::unsqueeze(safe, 1)), 1);
  Tensor w = weight ? tcore::mul(tcore::index_select(*weight, 0, safe), valid) : cast(valid, logp.dtype());
  return {tcore::neg(tcore::mul(chosen, w)), w};
}

// sum(losses) / sum(weights), torch's 'mean': NaN when every sample is ignored (a total weight of
// 0), with a gradient of 0 there as torch's (the division by 0 gave NaN to every input; where the
// total is 0 because the class weights are, torch's gradient is NaN and tcore's still 0)
Tensor mean_by_weight(const Tensor& losses, const Tensor& weights) {
  const Tensor total = tcore::sum(losses, std::optional<ScalarType>());
  const Tensor w = tcore::sum(weights, std::optional<ScalarType>());
  const Tensor none = tcore::eq(w, Scalar(0));
  const Tensor nan =
      tcore::full({}, std::numeric_limits<double>::quiet_NaN(), total.dtype(), std::nullopt, total.device());
  return tcore::add(tcore::div(total, tcore::where(none, tcore::ones_like(w), w)),
                    tcore::where(none, nan, tcore::zeros_like(nan)), 1);
}

Tensor reduce(const Tensor& losses, const Tensor& weights, int64_t reduction, IntArrayRef shape) {
  if (reduction == Reduction::None) return tcore::reshape(losses, shape);
  if (reduction == Reduction::Sum) return tcore::sum(losses, std::optional<ScalarType>());
  return mean_by_weight(losses, weights);
}

}  // namespace

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  check_loss_reduction(reduction, "nll_loss");
  auto [logp, t] = flatten_classes(self, target, "nll_loss");
  const Picked p = pick(logp, t, weight, ignore_index, "nll_loss");
  return reduce(p.losses, p.weights, reduction, target.sizes());
}

Tensor cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                     int64_t ignore_index, double label_smoothing) {
  check_loss_reduction(reduction, "cross_entropy");
  TCORE_CHECK_VALUE(label_smoothing >= 0.0 && label_smoothing <= 1.0,
                    "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "cross_entropy: expected a floating point input, got ",
                   to_string(self.dtype()));
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const Tensor logp_full = tcore::log_softmax(self, class_dim);
  if (is_floating(target.dtype())) {  // class probabilities, the shape of the input
    TCORE_CHECK_VALUE(target.sizes().vec() == self.sizes().vec(), "cross_entropy: probability targets must have the "
                      "input's shape ", shape_str(self.sizes()), ", got ", shape_str(target.sizes()));
    TCORE_CHECK_VALUE(ignore_index < 0, "cross_entropy: ignore_index is not supported for probability targets");
    const int64_t classes = self.sizes()[class_dim];
    Tensor probs = target;
    if (label_smoothing > 0)
      probs = tcore::add(tcore::mul(target, Scalar(1.0 - label_smoothing)), Scalar(label_smoothing / classes));
    Tensor terms = tcore::mul(logp_full, probs);
    if (weight) {
      std::vector<int64_t> wshape(self.dim(), 1);
      wshape[class_dim] = classes;
      terms = tcore::mul(terms, tcore::view(*weight, wshape));
    }
    const Tensor losses = tcore::neg(tcore::sum(terms, IntArrayRef({class_dim}), false));
    if (reduction == Reduction::None) return losses;
    const Tensor total = tcore::sum(losses, std::optional<ScalarType>());
    const int64_t n = self.dim() == 1 ? 1 : self.numel() / classes;
    return reduction == Reduction::Sum ? total : tcore::div(total, Scalar(n));
  }
  auto [logp, t] = flatten_classes(logp_full, target, "cross_entropy");
  const Picked p = pick(logp, t, weight, ignore_index, "cross_entropy");
  const Tensor nll = reduce(p.losses, p.weights, reduction, target.sizes());
  if (label_smoothing == 0) return nll;
  // the smoothing term: the mean over classes of -log p (class-weighted), on the samples that count
  const int64_t classes = logp.sizes()[1];
  const Tensor valid = cast(tcore::ne(t, Scalar(ignore_index)), logp.dtype());
  const Tensor weighted = weight ? tcore::mul(logp, tcore::view(*weight, {1, classes})) : logp;
  const Tensor smooth = tcore::mul(tcore::neg(tcore::sum(weighted, IntArrayRef({1}), false)), valid);
  Tensor smooth_reduced;
  if (reduction == Reduction::None) smooth_reduced = tcore::reshape(smooth, target.sizes());
  else if (reduction == Reduction::Sum) smooth_reduced = tcore::sum(smooth, std::optional<ScalarType>());
  else smooth_reduced = mean_by_weight(smooth, p.weights);
  return tcore::add(tcore::mul(nll, Scalar(1.0 - label_smoothing)),
                    tcore::mul(smooth_reduced, Scalar(label_smoothing / classes)));
}

// an integer input stays integer, its bounds truncated to it, as torch's (clamp's number bounds promote)
Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, "Bool inputs not supported for hardtanh");
  if (is_floating(self.dtype())) return tcore::clamp(self, min_val, max_val);
  const auto as_int = [](const Scalar& v) { return v.is_floating_point() ? static_cast<int64_t>(v.to_double()) : v.to_long(); };
  const int64_t lo = as_int(min_val), hi = as_int(max_val);
  TCORE_CHECK(self.dtype() != ScalarType::Byte || lo >= 0, "cannot do hardtanh on an unsigned type with negative limits");
  return tcore::clamp(self, std::optional<Scalar>(Scalar(lo)), std::optional<Scalar>(Scalar(hi)));
}

// ------------------------------------------------------------------ dropout
Tensor dropout(const Tensor& input, double p, bool train) {
  TCORE_CHECK_VALUE(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ", p);
  if (!train || p == 0.0 || input.numel() == 0) return input;
  TCORE_CHECK_TYPE(is_floating(input.dtype()), "dropout: expected a floating point tensor, got ",
                   to_string(input.dtype()));
  if (p == 1.0) return tcore::mul(input, tcore::zeros_like(input));
  const Tensor noise = tcore::uniform_(tcore::empty(input.sizes(), input.dtype()), 0.0, 1.0);
  // the mask in input's dtype, divided there, as torch's (bool / number was float32: a float64
  // input's kept values were 1.3333333730697632 for p = 0.25)
  const Tensor keep = tcore::to(tcore::ge(noise, Scalar(p)), input.dtype(), false, false, std::nullopt);
  return tcore::mul(input, tcore::div(keep, Scalar(1.0 - p)));
}

// ------------------------------------------------------------------ batch_norm
// On the CPU, the kernels of native/cpu/BatchNorm.cpp (their backward and forward-mode formulas
// in derivatives.yaml); elsewhere, the operators they are made of. In training with running
// statistics, the updated ones are copied into the buffers (not recorded: buffers).
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  check_batch_norm(input, weight, bias, running_mean, running_var, training);
  const bool has_stats = running_mean && running_mean->defined();
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1), dims{0};
  shape[1] = input.sizes()[1];
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  const auto per_channel = [&](const Tensor& v) { return tcore::view(v, IntArrayRef(shape)); };
  const auto affine = [&](Tensor out) {
    if (weight && weight->defined()) out = tcore::mul(out, per_channel(*weight));
    if (bias && bias->defined()) out = tcore::add(out, per_channel(*bias));
    return out;
  };
  if (input.numel() == 0) return affine(tcore::clone(input, std::nullopt));  // PyTorch's: the statistics untouched
  if (input.device().is_cpu()) {
    if (!training) {
      return std::get<0>(tcore::_native_batch_norm_legit_no_training(input, weight, bias, *running_mean, *running_var,
                                                                     momentum, eps));
    }
    if (!has_stats) return std::get<0>(tcore::_native_batch_norm_legit(input, weight, bias, true, momentum, eps));
    auto [out, save_mean, save_invstd, new_mean, new_var] = tcore::_native_batch_norm_legit_functional(
        input, weight, bias, *running_mean, *running_var, true, momentum, eps);
    NoGradGuard no_grad;
    tcore::copy_(*running_mean, new_mean);
    tcore::copy_(*running_var, new_var);
    return out;
  }
  Tensor mean, var;
  if (training) {
    mean = tcore::mean(input, IntArrayRef(dims), false);
    var = tcore::var(input, IntArrayRef(dims), Scalar(0), false);
    if (has_stats) {
      NoGradGuard no_grad;
      const double count = static_cast<double>(input.numel() / input.sizes()[1]);
      tcore::copy_(*running_mean, tcore::add(tcore::mul(*running_mean, Scalar(1 - momentum)),
                                             tcore::mul(mean, Scalar(momentum))));
      tcore::copy_(*running_var, tcore::add(tcore::mul(*running_var, Scalar(1 - momentum)),
                                            tcore::mul(var, Scalar(momentum * count / (count - 1)))));
    }
  } else {
    mean = *running_mean;
    var = *running_var;
  }
  return affine(tcore::mul(tcore::sub(input, per_channel(mean)), per_channel(tcore::rsqrt(tcore::add(var, Scalar(eps))))));
}

// ------------------------------------------------------------------ layer_norm
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enable) {
  (void)cudnn_enable;
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool fits = k >= 1 && input.dim() >= k;
  for (int64_t i = 0; fits && i < k; ++i) fits = input.sizes()[input.dim() - k + i] == normalized_shape[i];
  TCORE_CHECK_VALUE(fits, "Given normalized_shape=", shape_str(normalized_shape), ", expected input with shape [*, ",
                    shape_str(normalized_shape).substr(1), ", but got input of size", shape_str(input.sizes()));
  TCORE_CHECK_TYPE(is_floating(input.dtype()), "layer_norm: expected a floating point input, got ",
                   to_string(input.dtype()));
  for (const auto* t : {&weight, &bias}) {
    if (*t) {
      TCORE_CHECK_VALUE((*t)->sizes().vec() == normalized_shape.vec(), "layer_norm: weight and bias must have the "
                        "normalized shape ", shape_str(normalized_shape), ", got ", shape_str((*t)->sizes()));
    }
  }
  // On the CPU, one kernel (native/cpu/Normalization.cpp) whose backward and forward-mode formulas are
  // in derivatives.yaml; elsewhere, the operators it is made of.
  if (input.device().is_cpu()) return std::get<0>(tcore::native_layer_norm(input, normalized_shape, weight, bias, eps));
  std::vector<int64_t> dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  const Tensor mean = tcore::mean(input, IntArrayRef(dims), true);
  const Tensor var = tcore::var(input, IntArrayRef(dims), Scalar(0), true);
  Tensor out = tcore::mul(tcore::sub(input, mean), tcore::rsqrt(tcore::add(var, Scalar(eps))));
  if (weight) out = tcore::mul(out, *weight);
  if (bias) out = tcore::add(out, *bias);
  return out;
}

}  // namespace tcore::native
