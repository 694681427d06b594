// Operators of torch's API made of other operators (CompositeImplicitAutograd): their gradients,
// forward-mode tangents and functionalization are those of what they call. Where torch defines an
// edge (logaddexp of two equal infinities, sinc and xlogy at 0, fmax of NaN), the formula keeps it,
// and where a branch not taken would put 0 * inf into a gradient (sinc at 0), its input is made
// safe first.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <tcore/ops/dot.h>
#include <tcore/ops/square.h>
#include <tcore/ops/frac.h>
#include <tcore/ops/sgn.h>
#include <tcore/ops/deg2rad.h>
#include <tcore/ops/fix.h>
#include <tcore/ops/logit.h>
#include <tcore/ops/sinc.h>
#include <tcore/ops/floor_divide.h>
#include <tcore/ops/bitwise_not.h>
#include <tcore/ops/cumsum.h>
#include <tcore/ops/cumprod.h>
#include <tcore/ops/bitwise_not_native.h>
#include <tcore/ops/cumsum_native.h>
#include <tcore/ops/cumprod_native.h>
#include <tcore/ops/abs.h>
#include <tcore/ops/copysign.h>
#include <tcore/ops/copysign_native.h>
#include <tcore/ops/block_diag_native.h>
#include <tcore/ops/cartesian_prod_native.h>
#include <tcore/ops/cdist_native.h>
#include <tcore/ops/constant_pad_nd.h>
#include <tcore/ops/full.h>
#include <tcore/ops/kron_native.h>
#include <tcore/ops/linalg_vector_norm.h>
#include <tcore/ops/mm.h>
#include <tcore/ops/stack.h>
#include <tcore/ops/tensordot_native.h>
#include <tcore/ops/signbit_native.h>
#include <tcore/ops/index.h>
#include <tcore/ops/index_fill_native.h>
#include <tcore/ops/take_native.h>
#include <tcore/ops/index_put.h>
#include <tcore/ops/masked_fill.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/scalar_tensor_native.h>
#include <tcore/ops/add.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/clone.h>
#include <tcore/ops/alias.h>
#include <tcore/ops/to.h>
#include <tcore/ops/var.h>
#include <tcore/ops/std.h>
#include <tcore/ops/round.h>
#include <tcore/ops/mean.h>
#include <tcore/ops/any.h>
#include <tcore/ops/all.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/clamp.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/diagonal.h>
#include <tcore/ops/diagonal_scatter.h>
#include <tcore/ops/div.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/exp.h>
#include <tcore/ops/exp2.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/full_like.h>
#include <tcore/ops/gather.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/isinf.h>
#include <tcore/ops/isnan.h>
#include <tcore/ops/le.h>
#include <tcore/ops/log.h>
#include <tcore/ops/log1p.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/logical_or.h>
#include <tcore/ops/logical_xor.h>
#include <tcore/ops/maximum.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/ne.h>
#include <tcore/ops/neg.h>
#include <tcore/ops/ones_like.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/pow.h>
#include <tcore/ops/repeat.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/sign.h>
#include <tcore/ops/sin.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/trunc.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/view.h>
#include <tcore/ops/where.h>
#include <tcore/ops/zeros.h>
#include <tcore/ops/zeros_like.h>

#include <tcore/ops/addcdiv_native.h>
#include <tcore/ops/nansum.h>
#include <tcore/ops/xlogy.h>
#include <tcore/ops/var_mean_native.h>
#include <tcore/ops/std_mean_native.h>
#include <tcore/ops/var_native.h>
#include <tcore/ops/std_native.h>
#include <tcore/ops/round_native.h>
#include <tcore/ops/any_native.h>
#include <tcore/ops/all_native.h>
#include <tcore/ops/addcmul_native.h>
#include <tcore/ops/atleast_1d_native.h>
#include <tcore/ops/atleast_2d_native.h>
#include <tcore/ops/atleast_3d_native.h>
#include <tcore/ops/broadcast_tensors_native.h>
#include <tcore/ops/broadcast_to_native.h>
#include <tcore/ops/clamp_max_native.h>
#include <tcore/ops/clamp_min_native.h>
#include <tcore/ops/column_stack_native.h>
#include <tcore/ops/count_nonzero_native.h>
#include <tcore/ops/deg2rad_native.h>
#include <tcore/ops/diag_native.h>
#include <tcore/ops/diff_native.h>
#include <tcore/ops/dstack_native.h>
#include <tcore/ops/fix_native.h>
#include <tcore/ops/floor_divide_native.h>
#include <tcore/ops/fmax_native.h>
#include <tcore/ops/fmin_native.h>
#include <tcore/ops/frac_native.h>
#include <tcore/ops/hstack_native.h>
#include <tcore/ops/isfinite_native.h>
#include <tcore/ops/isneginf_native.h>
#include <tcore/ops/isposinf_native.h>
#include <tcore/ops/logaddexp2_native.h>
#include <tcore/ops/logaddexp_native.h>
#include <tcore/ops/logit_native.h>
#include <tcore/ops/meshgrid_native.h>
#include <tcore/ops/moveaxis_native.h>
#include <tcore/ops/movedim_native.h>
#include <tcore/ops/nan_to_num_native.h>
#include <tcore/ops/nanmean_native.h>
#include <tcore/ops/nansum_native.h>
#include <tcore/ops/sgn_native.h>
#include <tcore/ops/sinc_native.h>
#include <tcore/ops/square_native.h>
#include <tcore/ops/take_along_dim_native.h>
#include <tcore/ops/tile_native.h>
#include <tcore/ops/trace_native.h>
#include <tcore/ops/true_divide_native.h>
#include <tcore/ops/unflatten_native.h>
#include <tcore/ops/vstack_native.h>
#include <tcore/ops/xlogy_native.h>
#include <tcore/ops/diag.h>
#include <tcore/ops/diagflat_native.h>
#include <tcore/ops/dist_native.h>
#include <tcore/ops/flip.h>
#include <tcore/ops/float_power_native.h>
#include <tcore/ops/is_nonzero_native.h>
#include <tcore/ops/is_same_size_native.h>
#include <tcore/ops/isreal_native.h>
#include <tcore/ops/ldexp_native.h>
#include <tcore/ops/norm.h>
#include <tcore/ops/rot90_native.h>
#include <tcore/ops/transpose.h>

#include <tcore/core/Dispatch.h>
#include "native/TensorUtils.h"

namespace tcore::native {
namespace {

// x converted to type t (the differentiable `to`, without copying where x is of t already).
Tensor as_type(const Tensor& x, ScalarType t) { return tcore::to(x, t, false, false, std::nullopt); }

constexpr double kPi = 3.14159265358979323846;

// a number as a 0-dim tensor that promotes as a Python number does
Tensor number(const Scalar& s) { return wrapped_scalar_tensor(s); }

// self with `value` (a number, in self's dtype) where `replace` holds
Tensor replaced(const Tensor& replace, const Tensor& self, double value) {
  return tcore::where(replace, tcore::full_like(self, Scalar(value), std::nullopt, std::nullopt, std::nullopt,
                                                std::nullopt, std::nullopt), self);
}

Tensor as_floating(const Tensor& t) { return is_floating(t.dtype()) ? t : cast(t, floating_of(t.dtype())); }

// f of float16/bfloat16 inputs computed in float32 and rounded once, as torch's kernels compute
// them (each step rounded to 16 bits: round(bfloat16 1.2345, decimals=2) was 1.2421875, torch's
// 1.2265625); other dtypes as they are
template <typename F>
Tensor in_float32(const Tensor& a, const Tensor& b, F f) {
  const ScalarType t = result_type({&a, &b});
  if (!is_reduced_float(t)) return f(a, b);
  const auto up = [](const Tensor& x) { return as_type(x, ScalarType::Float); };
  return as_type(f(up(a), up(b)), t);
}
template <typename F>
Tensor in_float32(const Tensor& a, F f) {
  return in_float32(a, a, [&](const Tensor& x, const Tensor&) { return f(x); });
}

}  // namespace

// ------------------------------------------------------------------ pointwise

Tensor square(const Tensor& self) { return tcore::pow(self, Scalar(2)); }

Tensor clamp_min(const Tensor& self, const Scalar& min) {
  return tcore::clamp(self, std::optional<Scalar>(min), std::optional<Scalar>());
}
Tensor clamp_min(const Tensor& self, const Tensor& min) {
  return tcore::clamp(self, std::optional<Tensor>(min), std::optional<Tensor>());
}
Tensor clamp_max(const Tensor& self, const Scalar& max) {
  return tcore::clamp(self, std::optional<Scalar>(), std::optional<Scalar>(max));
}
Tensor clamp_max(const Tensor& self, const Tensor& max) {
  return tcore::clamp(self, std::optional<Tensor>(), std::optional<Tensor>(max));
}
Tensor clamp_min_(const Tensor& self, const Scalar& min) {
  return tcore::clamp_(self, std::optional<Scalar>(min), std::optional<Scalar>());
}
Tensor clamp_max_(const Tensor& self, const Scalar& max) {
  return tcore::clamp_(self, std::optional<Scalar>(), std::optional<Scalar>(max));
}

// torch's: an integer or bool tensor is finite everywhere, never infinite
Tensor isfinite(const Tensor& self) {
  if (!is_floating(self.dtype())) return tcore::ones_like(self, ScalarType::Bool);
  return tcore::logical_and(tcore::eq(self, self), tcore::ne(tcore::abs(self), Scalar(std::numeric_limits<double>::infinity())));
}
Tensor isposinf(const Tensor& self) {
  if (!is_floating(self.dtype())) return tcore::zeros_like(self, ScalarType::Bool);
  return tcore::eq(self, Scalar(std::numeric_limits<double>::infinity()));
}
Tensor isneginf(const Tensor& self) {
  if (!is_floating(self.dtype())) return tcore::zeros_like(self, ScalarType::Bool);
  return tcore::eq(self, Scalar(-std::numeric_limits<double>::infinity()));
}

Tensor floor_divide(const Tensor& self, const Tensor& other) {
  return tcore::div(self, other, std::optional<std::string_view>("floor"));
}
Tensor floor_divide(const Tensor& self, const Scalar& other) {
  return tcore::div(self, number(other), std::optional<std::string_view>("floor"));
}
Tensor true_divide(const Tensor& self, const Tensor& other) { return tcore::div(self, other); }
Tensor true_divide(const Tensor& self, const Scalar& other) { return tcore::div(self, number(other)); }

// max(a, b) + log1p(exp(-|a - b|)); a itself where a and b are the same infinity (inf - inf)
Tensor logaddexp(const Tensor& self, const Tensor& other) {
  return in_float32(as_floating(self), as_floating(other), [](const Tensor& a, const Tensor& b) {
    const Tensor spread = tcore::log1p(tcore::exp(tcore::neg(tcore::abs(tcore::sub(a, b)))));
    const Tensor r = tcore::add(tcore::maximum(a, b), spread);
    return tcore::where(tcore::logical_and(tcore::isinf(a), tcore::eq(a, b)), a, r);
  });
}
Tensor logaddexp2(const Tensor& self, const Tensor& other) {
  return in_float32(as_floating(self), as_floating(other), [](const Tensor& a, const Tensor& b) {
    const Tensor spread =
        tcore::mul(tcore::log1p(tcore::exp2(tcore::neg(tcore::abs(tcore::sub(a, b))))), Scalar(1.0 / std::log(2.0)));
    const Tensor r = tcore::add(tcore::maximum(a, b), spread);
    return tcore::where(tcore::logical_and(tcore::isinf(a), tcore::eq(a, b)), a, r);
  });
}

namespace {
// the largest finite value of a floating dtype
double largest(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return 65504.0;
    case ScalarType::BFloat16: return 3.3895313892515355e38;
    case ScalarType::Float: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}
}  // namespace

// NaN -> nan (0), inf -> posinf (the largest finite value), -inf -> neginf (the lowest)
Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!is_floating(self.dtype())) return tcore::clone(self, std::nullopt);
  const double big = largest(self.dtype());
  // a replacement beyond the dtype's range is its infinity, as torch's cast gives it
  const auto in_range = [big](double v) { return std::isfinite(v) && std::abs(v) > big ? std::copysign(HUGE_VAL, v) : v; };
  Tensor r = replaced(tcore::isnan(self), self, in_range(nan.value_or(0.0)));
  r = replaced(isposinf(self), r, in_range(posinf.value_or(big)));
  return replaced(isneginf(self), r, in_range(neginf.value_or(-big)));
}
Tensor nan_to_num_(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                   std::optional<double> neginf) {
  return tcore::copy_(self, nan_to_num(self, nan, posinf, neginf));
}

// x * log(y): 0 where x is 0, NaN where y is NaN. Where x is 0 its gradient is log(y) (torch's),
// 0 where y <= 0 (log(y) taken as 0 there, so no 0 * -inf); at x = 0, y = inf the value is 0 and
// its gradient NaN (torch's is inf).
Tensor xlogy(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(result_type({&self, &other}));
  const Tensor x = cast(self, t), y = cast(other, t);
  const Tensor zero_x = tcore::eq(x, Scalar(0));
  const Tensor log_y = replaced(tcore::logical_and(zero_x, tcore::le(y, Scalar(0))), tcore::log(y), 0.0);
  const Tensor product = replaced(zero_x, tcore::mul(x, log_y), 0.0);  // (+0 wherever x is 0, torch's: 0 * -log was -0)
  return replaced(tcore::isnan(y), product, std::numeric_limits<double>::quiet_NaN());
}
// (through the operator, so that its derivative is recorded)
Tensor xlogy(const Scalar& self, const Tensor& other) { return tcore::xlogy(number(self), other); }
Tensor xlogy(const Tensor& self, const Scalar& other) { return tcore::xlogy(self, number(other)); }

// fn(self), an out-of-place operator's result, written into self with torch's in-place checks
// (self's shape is the broadcast one, the result type can be cast to self's: an integer self
// cannot hold a floating result). fn reads a copy of a self that requires grad: its backward may
// have saved its input, which the write then changes (square_'s through pow).
template <typename F>
static Tensor written_into(const Tensor& self, F&& fn) {
  // The function may save its input for backward; the copy into self would then change what it saved.
  const bool recorded = GradMode::is_enabled() && self.requires_grad();
  const Tensor result = fn(recorded ? tcore::clone(self) : self);
  TCORE_CHECK(result.sizes().vec() == self.sizes().vec(), "output with shape ", shape_str(self.sizes()),
              " doesn't match the broadcast shape ", shape_str(result.sizes()));
  TCORE_CHECK(can_cast(result.dtype(), self.dtype()), "result type ", to_string(result.dtype()),
              " can't be cast to the desired output type ", to_string(self.dtype()));
  return tcore::copy_(self, result);
}
Tensor xlogy_(const Tensor& self, const Tensor& other) {
  return written_into(self, [&](const Tensor& x) { return tcore::xlogy(x, other); });
}
Tensor xlogy_(const Tensor& self, const Scalar& other) { return tcore::xlogy_(self, number(other)); }
Tensor square_(const Tensor& self) { return written_into(self, [&](const Tensor& x) { return tcore::square(x); }); }
Tensor frac_(const Tensor& self) { return written_into(self, [&](const Tensor& x) { return tcore::frac(x); }); }
Tensor sgn_(const Tensor& self) { return written_into(self, [&](const Tensor& x) { return tcore::sgn(x); }); }
Tensor deg2rad_(const Tensor& self) { return written_into(self, [&](const Tensor& x) { return tcore::deg2rad(x); }); }
Tensor fix_(const Tensor& self) { return written_into(self, [&](const Tensor& x) { return tcore::fix(x); }); }
Tensor logit_(const Tensor& self, std::optional<double> eps) {
  return written_into(self, [&](const Tensor& x) { return tcore::logit(x, eps); });
}
Tensor sinc_(const Tensor& self) { return written_into(self, [&](const Tensor& x) { return tcore::sinc(x); }); }
Tensor floor_divide_(const Tensor& self, const Tensor& other) {
  return written_into(self, [&](const Tensor& x) { return tcore::floor_divide(x, other); });
}
Tensor floor_divide_(const Tensor& self, const Scalar& other) {
  return written_into(self, [&](const Tensor& x) { return tcore::floor_divide(x, other); });
}
Tensor bitwise_not_(const Tensor& self) {
  return written_into(self, [&](const Tensor& x) { return tcore::bitwise_not(x); });
}
Tensor cumsum_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return written_into(self, [&](const Tensor& x) { return tcore::cumsum(x, dim, dtype); });
}
Tensor cumprod_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return written_into(self, [&](const Tensor& x) { return tcore::cumprod(x, dim, dtype); });
}

// self + value * tensor1 * tensor2 in the tensors' result type: value takes no part in the
// promotion (a floating value of an integral result is truncated, as torch's)
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  const ScalarType type = result_type({&self, &tensor1, &tensor2});
  TCORE_CHECK_TYPE(type != ScalarType::Bool, "\"addcmul_cpu_out\" not implemented for 'Bool'");
  const Scalar factor = is_floating(type) ? value : Scalar(value.to<int64_t>());
  return tcore::add(self, tcore::mul(tcore::mul(tensor1, number(factor)), tensor2), 1);
}
Tensor addcmul_(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  assert_no_partial_overlap(self, tensor1);  // (torch's TensorIterator checks)
  assert_no_partial_overlap(self, tensor2);
  return written_into(self, [&](const Tensor& x) { return addcmul(x, tensor1, tensor2, value); });
}
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  TCORE_CHECK_TYPE(is_floating(tensor1.dtype()) || is_floating(tensor2.dtype()),
                   "Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
                   "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented "
                   "as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                   "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
                   "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  return tcore::add(self, tcore::div(tcore::mul(tensor1, number(value)), tensor2), 1);
}
Tensor addcdiv_(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  assert_no_partial_overlap(self, tensor1);  // (torch's TensorIterator checks)
  assert_no_partial_overlap(self, tensor2);
  return written_into(self, [&](const Tensor& x) { return addcdiv(x, tensor1, tensor2, value); });
}

Tensor frac(const Tensor& self) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "\"frac_cpu\" not implemented for '", to_string(self.dtype()), "'");
  return tcore::sub(self, tcore::trunc(self), 1);
}
Tensor sgn(const Tensor& self) {  // of a bool tensor: itself (a copy), as torch's
  return self.dtype() == ScalarType::Bool ? tcore::clone(self, std::nullopt) : tcore::sign(self);
}
Tensor fix(const Tensor& self) { return tcore::trunc(self); }
Tensor deg2rad(const Tensor& self) { return tcore::mul(as_floating(self), number(kPi / 180.0)); }

// log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given (its gradient 0 outside)
Tensor logit(const Tensor& self, std::optional<double> eps) {
  Tensor x = as_floating(self);
  if (eps) x = tcore::clamp(x, std::optional<Scalar>(*eps), std::optional<Scalar>(1.0 - *eps));
  return tcore::log(tcore::div(x, tcore::sub(number(1.0), x)));
}

// sin(pi x) / (pi x), 1 at 0: the quotient of a safe x there (1), so its gradient is not 0 / 0
Tensor sinc(const Tensor& self) {
  return in_float32(as_floating(self), [](const Tensor& x) {
    const Tensor zero = tcore::eq(x, Scalar(0));
    const Tensor safe = tcore::mul(replaced(zero, x, 1.0), number(kPi));
    return replaced(zero, tcore::div(tcore::sin(safe), safe), 1.0);
  });
}

// the larger, NaN only where both are; ties (and a NaN self) give self's gradient all, as torch's
Tensor fmax(const Tensor& self, const Tensor& other) {
  return tcore::where(tcore::logical_or(tcore::ge(self, other), tcore::isnan(other)), self, other);
}
Tensor fmin(const Tensor& self, const Tensor& other) {
  return tcore::where(tcore::logical_or(tcore::le(self, other), tcore::isnan(other)), self, other);
}

// ------------------------------------------------------------------ shapes

// torch's movedim: the named dims to their places, the others in order in the rest
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  const int64_t n = self.dim();
  TCORE_CHECK_VALUE(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (",
                    shape_str(source), " dims) should contain the same number of dims as destination (",
                    shape_str(destination), " dims)");
  if (n == 0) {  // a 0-dim tensor: dims 0 and -1 name it, as torch's
    for (size_t k = 0; k < source.size(); ++k) {
      wrap_dim(source[k], 0);
      wrap_dim(destination[k], 0);
    }
    return tcore::alias(self);
  }
  std::vector<int64_t> order(static_cast<size_t>(n), -1);
  std::vector<bool> used(static_cast<size_t>(n), false), placed(static_cast<size_t>(n), false);
  for (size_t k = 0; k < source.size(); ++k) {
    const int64_t s = wrap_dim(source[k], n), d = wrap_dim(destination[k], n);
    TCORE_CHECK_VALUE(!used[s], "movedim: repeated dim in `source` (", shape_str(source), ")");
    TCORE_CHECK_VALUE(!placed[d], "movedim: repeated dim in `destination` (", shape_str(destination), ")");
    used[s] = placed[d] = true;
    order[d] = s;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (order[d] >= 0) continue;
    while (used[next]) ++next;
    order[d] = next++;
  }
  return tcore::permute(self, order);
}
Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return movedim(self, IntArrayRef({source}), IntArrayRef({destination}));
}
Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return movedim(self, source, destination);
}
Tensor moveaxis(const Tensor& self, int64_t source, int64_t destination) { return movedim(self, source, destination); }

// repeat, with fewer dims than self's taken as leading ones, more given to self as leading 1s
Tensor tile(const Tensor& self, IntArrayRef dims) {
  std::vector<int64_t> reps = dims.vec();
  if (static_cast<int64_t>(reps.size()) < self.dim()) reps.insert(reps.begin(), self.dim() - reps.size(), 1);
  return tcore::repeat(self, reps);
}

Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return tcore::expand(self, size, false); }

std::vector<Tensor> broadcast_tensors(ArrayRef<Tensor> tensors) {
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes());
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(tcore::expand(t, shape, false));
  return out;
}

Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? tcore::reshape(self, {1}) : self; }
Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return tcore::reshape(self, {1, 1});
  return self.dim() == 1 ? tcore::unsqueeze(self, 0) : self;
}
Tensor atleast_3d(const Tensor& self) {
  if (self.dim() == 0) return tcore::reshape(self, {1, 1, 1});
  if (self.dim() == 1) return tcore::unsqueeze(tcore::unsqueeze(self, 0), -1);
  return self.dim() == 2 ? tcore::unsqueeze(self, -1) : self;
}
namespace {
template <typename F>
std::vector<Tensor> each(ArrayRef<Tensor> tensors, F f) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(f(t));
  return out;
}
}  // namespace
std::vector<Tensor> atleast_1d(ArrayRef<Tensor> tensors) { return each(tensors, [](const Tensor& t) { return atleast_1d(t); }); }
std::vector<Tensor> atleast_2d(ArrayRef<Tensor> tensors) { return each(tensors, [](const Tensor& t) { return atleast_2d(t); }); }
std::vector<Tensor> atleast_3d(ArrayRef<Tensor> tensors) { return each(tensors, [](const Tensor& t) { return atleast_3d(t); }); }

Tensor hstack(ArrayRef<Tensor> tensors) {
  TCORE_CHECK_VALUE(!tensors.empty(), "hstack expects a non-empty TensorList");
  const std::vector<Tensor> parts = atleast_1d(tensors);
  return tcore::cat(parts, parts[0].dim() == 1 ? 0 : 1);
}
Tensor vstack(ArrayRef<Tensor> tensors) {
  TCORE_CHECK_VALUE(!tensors.empty(), "vstack expects a non-empty TensorList");
  return tcore::cat(atleast_2d(tensors), 0);
}
Tensor dstack(ArrayRef<Tensor> tensors) {
  TCORE_CHECK_VALUE(!tensors.empty(), "dstack expects a non-empty TensorList");
  return tcore::cat(atleast_3d(tensors), 2);
}
Tensor column_stack(ArrayRef<Tensor> tensors) {
  TCORE_CHECK_VALUE(!tensors.empty(), "column_stack expects a non-empty TensorList");
  return tcore::cat(each(tensors, [](const Tensor& t) { return t.dim() <= 1 ? tcore::reshape(t, {t.numel(), 1}) : t; }), 1);
}

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  TCORE_CHECK_VALUE(self.dim() > 0, "unflatten: Cannot unflatten a 0-d tensor");
  const int64_t d = wrap_dim(dim, self.dim());
  TCORE_CHECK_VALUE(!sizes.empty(), "unflatten: sizes must be non-empty");
  std::vector<int64_t> shape = self.sizes().vec();
  shape.erase(shape.begin() + d);
  shape.insert(shape.begin() + d, sizes.begin(), sizes.end());
  const int64_t known = std::accumulate(sizes.begin(), sizes.end(), int64_t{1},
                                        [](int64_t a, int64_t s) { return s == -1 ? a : a * s; });
  const bool inferred = std::count(sizes.begin(), sizes.end(), -1) == 1;
  TCORE_CHECK_VALUE(inferred ? (known != 0 && self.sizes()[d] % known == 0) : known == self.sizes()[d],
                    "unflatten: Provided sizes ", shape_str(sizes), " don't multiply up to the size of dim ", dim,
                    " (", self.sizes()[d], ") in the input tensor");
  return tcore::view(self, shape);
}

namespace {
// index_fill's positions as a bool mask along dim, shaped to broadcast over self: masked_fill then
// fills them, so its gradient is torch's (self: 0 at the filled positions; value: the sum of the
// gradient over them, each position once however often the index repeats it).
Tensor index_fill_mask(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = wrap_dim(dim, self.dim());
  TCORE_CHECK_INDEX(index.dtype() == ScalarType::Long, "index_fill_(): Expected dtype int64 for index.");
  TCORE_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  // 1 everywhere but n at dim, so that an index out of range is reported at dim (a 0-dim self: [1])
  std::vector<int64_t> shape(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), 1);
  shape[static_cast<size_t>(d)] = self.dim() == 0 ? 1 : self.sizes()[d];
  std::vector<std::optional<Tensor>> at(static_cast<size_t>(d) + 1);
  at.back() = tcore::reshape(index, {-1});
  const Tensor mask = tcore::index_put(tcore::zeros(shape, ScalarType::Bool, std::nullopt, self.device()), at,
                                       tcore::ones({}, ScalarType::Bool, std::nullopt, self.device()), false);
  return self.dim() == 0 ? tcore::reshape(mask, {}) : mask;
}
void check_index_fill_value(const Tensor& value) {
  TCORE_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
}
}  // namespace

// (out of place: a clone of self keeping its layout, filled, as torch's)
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return tcore::masked_fill_(tcore::clone(self), index_fill_mask(self, dim, index), value);
}
Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  assert_no_overlap(self, index);
  return tcore::masked_fill_(self, index_fill_mask(self, dim, index), value);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  check_index_fill_value(value);
  return tcore::masked_fill_(tcore::clone(self), index_fill_mask(self, dim, index), value);
}
Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  check_index_fill_value(value);
  assert_no_overlap(self, index);
  return tcore::masked_fill_(self, index_fill_mask(self, dim, index), value);
}

// A number as a 0-dim tensor (the default float dtype unless given): checked against the dtype's
// range as torch's, except that float16 and bfloat16 round a number beyond theirs to inf, as there.
Tensor scalar_tensor(const Scalar& s, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                     std::optional<Device> device, std::optional<bool> pin_memory) {
  const ScalarType t = dtype.value_or(default_float_dtype());
  if (!is_reduced_float(t)) return tcore::full({}, s, t, layout, device, pin_memory);
  return as_type(tcore::full({}, s, ScalarType::Double, layout, device, pin_memory), t);
}

// gather along dim of self and indices broadcast to each other (dim excepted); flattened without dim
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  TCORE_CHECK_TYPE(indices.dtype() == ScalarType::Long,
                   "torch.take_along_dim(): dtype of indices should be Long but got ", to_string(indices.dtype()));
  if (!dim) return tcore::gather(tcore::reshape(self, {-1}), 0, tcore::reshape(indices, {-1}), false);
  TCORE_CHECK_VALUE(self.dim() == indices.dim(), "torch.take_along_dim(): input and indices should have the same "
                    "number of dimensions, but got ", self.dim(), " dimensions for input, and ", indices.dim(),
                    " dimensions for indices");
  const int64_t d = wrap_dim(*dim, self.dim(), /*allow_scalar=*/false);
  // negative indices count from the end here, as torch's (gather itself refuses them)
  const Tensor wrapped = tcore::where(tcore::lt(indices, Scalar(0)), tcore::add(indices, Scalar(self.sizes()[d]), 1), indices);
  std::vector<int64_t> a = self.sizes().vec(), b = indices.sizes().vec();
  a[d] = b[d] = 1;
  std::vector<int64_t> shape = broadcast_shapes(a, b);
  std::vector<int64_t> self_shape = shape, index_shape = shape;
  self_shape[d] = self.sizes()[d];
  index_shape[d] = indices.sizes()[d];
  return tcore::gather(tcore::expand(self, self_shape, false), d, tcore::expand(wrapped, index_shape, false), false);
}

Tensor copysign(const Tensor& self, const Scalar& other) { return tcore::copysign(self, wrapped_scalar_tensor(other)); }
Tensor copysign_(const Tensor& self, const Scalar& other) { return tcore::copysign_(self, wrapped_scalar_tensor(other)); }

// the sign bit: copysign(1, x) keeps a NaN's and a zero's; integers are negative or not, bools never
Tensor signbit(const Tensor& self) {
  if (self.dtype() == ScalarType::Bool) return tcore::zeros_like(self, ScalarType::Bool);
  if (!is_floating(self.dtype())) return tcore::lt(self, 0);
  return tcore::lt(tcore::copysign(tcore::ones_like(self), self), 0);
}

// self as if flattened, at each index (a negative one counts from the end): indexing's gradient
Tensor take(const Tensor& self, const Tensor& index) {
  TCORE_CHECK(index.dtype() == ScalarType::Long, "take(): Expected a long tensor for index, but got ",
              to_string(index.dtype()));
  TCORE_CHECK_INDEX(self.numel() > 0 || index.numel() == 0, "take(): tried to take from an empty tensor");
  return tcore::index(tcore::reshape(self, {-1}), {std::optional<Tensor>(index)});
}

std::vector<Tensor> meshgrid(ArrayRef<Tensor> tensors, std::string_view indexing) {
  TCORE_CHECK_VALUE(indexing == "ij" || indexing == "xy", "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", "
                    "but received: ", indexing);
  TCORE_CHECK_VALUE(!tensors.empty(), "torch.meshgrid expects a non-empty TensorList");
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) {
    TCORE_CHECK_VALUE(t.dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ",
                      shape_str(t.sizes()));
    shape.push_back(t.numel());
  }
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<Tensor> out;
  for (size_t k = 0; k < tensors.size(); ++k) {
    std::vector<int64_t> view(shape.size(), 1);
    const size_t at = swap && k < 2 ? 1 - k : k;
    view[at] = tensors[k].numel();
    out.push_back(tcore::expand(tcore::reshape(tensors[k], view), shape, false));
  }
  return out;
}
std::vector<Tensor> meshgrid(ArrayRef<Tensor> tensors) { return meshgrid(tensors, "ij"); }

// every combination of the 1-D inputs' elements, one row each (the first input's varying slowest)
Tensor cartesian_prod(ArrayRef<Tensor> tensors) {
  TCORE_CHECK_VALUE(!tensors.empty(), "cartesian_prod expects a non-empty TensorList");
  for (const Tensor& t : tensors) {
    TCORE_CHECK(t.dim() == 1, "Expect a 1D vector, but got shape ", shape_str(t.sizes()));
    TCORE_CHECK(t.dtype() == tensors[0].dtype(), "meshgrid expects all tensors to have the same dtype");
  }
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> columns;
  for (const Tensor& g : meshgrid(tensors, "ij")) columns.push_back(tcore::reshape(g, {-1}));
  return tcore::stack(columns, 1);
}

// sum over dims_self of self and dims_other of other (paired in order): self's free dims, then
// other's, as one mm of the two reshaped (torch's rule)
Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  TCORE_CHECK(dims_self.size() == dims_other.size(), "both dimension lists should have same length");
  TCORE_CHECK(self.dtype() == other.dtype(), "both inputs should have same dtype");
  std::vector<bool> summed_self(static_cast<size_t>(self.dim())), summed_other(static_cast<size_t>(other.dim()));
  std::vector<int64_t> order_self, order_other;  // self: free then summed; other: summed then free
  int64_t csize = 1;
  for (size_t k = 0; k < dims_self.size(); ++k) {
    const int64_t a = wrap_dim(dims_self[k], self.dim()), b = wrap_dim(dims_other[k], other.dim());
    TCORE_CHECK(!summed_self[a], "dim ", a, " appears multiple times in the list of dims");
    TCORE_CHECK(!summed_other[b], "dim ", b, " appears multiple times in the list of dims");
    TCORE_CHECK(self.sizes()[a] == other.sizes()[b], "contracted dimensions need to match, but first has size ",
                self.sizes()[a], " in dim ", a, " and second has size ", other.sizes()[b], " in dim ", b);
    summed_self[a] = summed_other[b] = true;
    csize *= self.sizes()[a];
    order_other.push_back(b);
  }
  std::vector<int64_t> shape, summed_order;
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (summed_self[d]) continue;
    order_self.push_back(d);
    shape.push_back(self.sizes()[d]);
    rows *= self.sizes()[d];
  }
  for (size_t k = 0; k < dims_self.size(); ++k) order_self.push_back(wrap_dim(dims_self[k], self.dim()));
  for (int64_t d = 0; d < other.dim(); ++d) {
    if (summed_other[d]) continue;
    order_other.push_back(d);
    shape.push_back(other.sizes()[d]);
    cols *= other.sizes()[d];
  }
  if (shape.empty()) {  // every dim summed: a dot product, as torch's (which autocast leaves as it is)
    return tcore::dot(tcore::reshape(tcore::permute(self, order_self), {csize}),
                      tcore::reshape(tcore::permute(other, order_other), {csize}));
  }
  const Tensor a = tcore::reshape(tcore::permute(self, order_self), {rows, csize});
  const Tensor b = tcore::reshape(tcore::permute(other, order_other), {csize, cols});
  return tcore::reshape(tcore::mm(a, b), shape);
}

// the Kronecker product: self's and other's dims paired (the shorter one's leading dims 1), each
// result dim self's size times other's, element (i * other + j) = self[i] * other[j]
Tensor kron(const Tensor& self, const Tensor& other) {
  const int64_t n = std::max(self.dim(), other.dim());
  std::vector<int64_t> a_shape, b_shape, shape;
  for (int64_t d = 0; d < n; ++d) {
    const int64_t sa = d < n - self.dim() ? 1 : self.sizes()[d - (n - self.dim())];
    const int64_t sb = d < n - other.dim() ? 1 : other.sizes()[d - (n - other.dim())];
    a_shape.insert(a_shape.end(), {sa, 1});
    b_shape.insert(b_shape.end(), {1, sb});
    shape.push_back(sa * sb);
  }
  return tcore::reshape(tcore::mul(tcore::reshape(self, a_shape), tcore::reshape(other, b_shape)), shape);
}

// the inputs (0-d: 1 x 1, 1-d: a row) along the diagonal of a zero matrix, in their promoted dtype
Tensor block_diag(ArrayRef<Tensor> tensors) {
  std::vector<Tensor> blocks;
  int64_t width = 0;
  for (size_t k = 0; k < tensors.size(); ++k) {
    const Tensor& t = tensors[k];
    TCORE_CHECK(t.dim() <= 2, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", k, " has ",
                t.dim(), " dimensions");
    blocks.push_back(t.dim() == 2 ? t : tcore::reshape(t, {1, t.numel()}));
    width += blocks.back().sizes()[1];
  }
  if (blocks.empty()) return tcore::zeros({1, 0}, default_float_dtype());
  ScalarType t = blocks[0].dtype();
  for (const Tensor& b : blocks) t = promote_types(t, b.dtype());
  std::vector<Tensor> rows;
  int64_t left = 0;
  for (const Tensor& b : blocks) {
    const int64_t w = b.sizes()[1];
    rows.push_back(tcore::constant_pad_nd(as_type(b, t), {left, width - left - w}, 0));
    left += w;
  }
  return tcore::cat(rows, 0);
}

// the p-norm distance of each row of x1 to each row of x2, over batch dims that broadcast
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  (void)compute_mode;  // torch's choice of a matmul for p = 2: one formula here
  TCORE_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  TCORE_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  TCORE_CHECK(x1.sizes().back() == x2.sizes().back(), "X1 and X2 must have the same number of columns. X1: ",
              x1.sizes().back(), " X2: ", x2.sizes().back());
  TCORE_CHECK(is_floating(x1.dtype()), "cdist only supports floating-point dtypes, X1 got: ", to_string(x1.dtype()));
  TCORE_CHECK(is_floating(x2.dtype()), "cdist only supports floating-point dtypes, X2 got: ", to_string(x2.dtype()));
  TCORE_CHECK(x1.dtype() == x2.dtype(), "expected scalar type ", to_string(x1.dtype()), " but found ",
              to_string(x2.dtype()));
  TCORE_CHECK(p >= 0, "cdist only supports non-negative p values");
  const Tensor diff = tcore::sub(tcore::unsqueeze(x1, -2), tcore::unsqueeze(x2, -3), 1);
  return tcore::linalg_vector_norm(diff, Scalar(p), IntArrayRef({-1}), false, std::nullopt);
}

// a 1-D input on a diagonal of a square matrix, a 2-D input's diagonal (a copy)
Tensor diag(const Tensor& self, int64_t diagonal) {
  TCORE_CHECK_VALUE(self.dim() == 1 || self.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ", self.dim(), "D");
  if (self.dim() == 2) return tcore::clone(tcore::diagonal(self, diagonal, 0, 1), std::nullopt);
  const int64_t n = self.numel() + (diagonal < 0 ? -diagonal : diagonal);
  const Tensor square = tcore::zeros({n, n}, self.dtype(), std::nullopt, self.device());
  return tcore::diagonal_scatter(square, self, diagonal, 0, 1);
}

Tensor trace(const Tensor& self) {
  TCORE_CHECK_VALUE(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return tcore::sum(tcore::diagonal(self, 0, 0, 1), std::optional<ScalarType>());
}

// the n-th forward difference along dim (a bool tensor: logical_xor, as torch's)
Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  TCORE_CHECK_VALUE(self.dim() > 0, "diff expects input to be at least one-dimensional");
  TCORE_CHECK_VALUE(n >= 0, "order must be non-negative but got ", n);
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor x = self;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<Tensor> parts;
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(self);
    if (append && append->defined()) parts.push_back(*append);
    x = tcore::cat(parts, d);
  }
  for (int64_t k = 0; k < n && x.sizes()[d] > 0; ++k) {
    const int64_t len = x.sizes()[d] - 1;
    const Tensor hi = tcore::narrow(x, d, 1, len), lo = tcore::narrow(x, d, 0, len);
    x = x.dtype() == ScalarType::Bool ? tcore::logical_xor(hi, lo) : tcore::sub(hi, lo, 1);
  }
  return x;
}

// ------------------------------------------------------------------ reductions

Tensor count_nonzero(const Tensor& self, IntArrayRef dim) {
  return tcore::sum(tcore::ne(self, Scalar(0)), std::optional<IntArrayRef>(dim), false, ScalarType::Long);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (dim) return count_nonzero(self, IntArrayRef({*dim}));
  return tcore::sum(tcore::ne(self, Scalar(0)), ScalarType::Long);
}

// sum and mean over the values that are not NaN (a floating tensor's; an integer one has none)
Tensor nansum(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const Tensor values = is_floating(self.dtype()) ? replaced(tcore::isnan(self), self, 0.0) : self;
  return tcore::sum(values, dim, keepdim, dtype);
}
Tensor nanmean(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()) || (dtype && is_floating(*dtype)),
                   "nanmean(): expected input to have floating point dtype but got ", to_string(self.dtype()));
  const Tensor counted = tcore::sum(tcore::eq(self, self), dim, keepdim, std::optional<ScalarType>());
  return tcore::div(tcore::nansum(self, dim, keepdim, dtype), counted);  // (the operator: its derivative)
}

// std/var with torch's older `unbiased` flag: correction 1 or 0
namespace {
std::optional<Scalar> correction_of(bool unbiased) { return Scalar(unbiased ? int64_t{1} : int64_t{0}); }
}  // namespace
Tensor std(const Tensor& self, bool unbiased) {
  return tcore::std(self, OptionalIntArrayRef(), correction_of(unbiased), false);
}
Tensor std(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return tcore::std(self, dim, correction_of(unbiased), keepdim);
}
Tensor var(const Tensor& self, bool unbiased) {
  return tcore::var(self, OptionalIntArrayRef(), correction_of(unbiased), false);
}
Tensor var(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return tcore::var(self, dim, correction_of(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                                    bool keepdim) {
  return {tcore::std(self, dim, correction, keepdim), tcore::mean(self, dim, keepdim, std::nullopt)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return std_mean(self, dim, correction_of(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased) {
  return std_mean(self, OptionalIntArrayRef(), correction_of(unbiased), false);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                                    bool keepdim) {
  return {tcore::var(self, dim, correction, keepdim), tcore::mean(self, dim, keepdim, std::nullopt)};
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return var_mean(self, dim, correction_of(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased) {
  return var_mean(self, OptionalIntArrayRef(), correction_of(unbiased), false);
}

// all/any over several dims, one at a time from the last (None: every dim; an empty list: none,
// the values as truth values, as torch's)
namespace {
template <typename One, typename Whole>
Tensor over_dims(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, One one, Whole whole) {
  if (!dim) {
    const Tensor r = whole(self);
    return keepdim ? tcore::reshape(r, std::vector<int64_t>(static_cast<size_t>(self.dim()), 1)) : r;
  }
  std::vector<int64_t> dims;
  for (int64_t d : *dim) dims.push_back(wrap_dim(d, std::max<int64_t>(self.dim(), 1)));
  std::sort(dims.rbegin(), dims.rend());
  for (size_t k = 1; k < dims.size(); ++k)
    TCORE_CHECK_VALUE(dims[k] != dims[k - 1], "dim ", dims[k], " appears multiple times in the list of dims");
  if (dims.empty()) {  // uint8 stays uint8, as torch's all/any
    const Tensor truth = tcore::ne(self, Scalar(0));
    return self.dtype() == ScalarType::Byte ? as_type(truth, ScalarType::Byte) : truth;
  }
  Tensor r = self;
  for (int64_t d : dims) r = one(r, self.dim() == 0 ? 0 : d);
  return r;
}
}  // namespace
Tensor all(const Tensor& self, OptionalIntArrayRef dim, bool keepdim) {
  return over_dims(self, dim, keepdim, [&](const Tensor& t, int64_t d) { return tcore::all(t, d, keepdim); },
                   [](const Tensor& t) { return tcore::all(t); });
}
Tensor any(const Tensor& self, OptionalIntArrayRef dim, bool keepdim) {
  return over_dims(self, dim, keepdim, [&](const Tensor& t, int64_t d) { return tcore::any(t, d, keepdim); },
                   [](const Tensor& t) { return tcore::any(t); });
}

// round to a number of decimals, torch's formula: x * 10^d rounded (half to even) and divided
// back, or x / 10^-d rounded and multiplied back for negative d
Tensor round(const Tensor& self, int64_t decimals) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "\"round_decimals\" not implemented for '", to_string(self.dtype()), "'");
  const double ten_pow = std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals));
  return in_float32(self, [&](const Tensor& x) {
    if (decimals < 0) return tcore::mul(tcore::round(tcore::div(x, number(ten_pow))), number(ten_pow));
    return tcore::div(tcore::round(tcore::mul(x, number(ten_pow))), number(ten_pow));
  });
}

// rot90: k quarter turns from dims[0] toward dims[1] (k taken mod 4, negative k the other way), as
// torch's: a flip and a transpose (a view of the flipped copy), a contiguous clone for k = 0
Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  const int64_t n = self.dim();
  TCORE_CHECK(dims.size() == 2, "expected total rotation dims == 2, but got dims = ", dims.size());
  TCORE_CHECK(n >= 2, "expected total dims >= 2, but got total dims = ", n);
  wrap_dim(dims[0], n);  // a dim out of range: torch's IndexError
  wrap_dim(dims[1], n);
  TCORE_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != n, "expected rotation dims to be different, but got "
              "dim0 = ", dims[0], " and dim1 = ", dims[1]);
  switch ((4 + k % 4) % 4) {
    case 1: return tcore::transpose(tcore::flip(self, {dims[1]}), dims[0], dims[1]);
    case 2: return tcore::flip(self, dims);
    case 3: return tcore::transpose(tcore::flip(self, {dims[0]}), dims[0], dims[1]);
    default: return tcore::clone(self, MemoryFormat::Contiguous);
  }
}

// the matrix with self's values (flattened) on its offset diagonal
Tensor diagflat(const Tensor& self, int64_t offset) { return tcore::diag(tcore::reshape(self, {-1}), offset); }

// the p-norm of self - other (broadcast), norm's derivative
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) { return tcore::norm(tcore::sub(self, other), p); }

// pow in float64, whatever the operands' dtypes (torch's float_power; no complex dtypes here)
Tensor float_power(const Tensor& self, const Tensor& exponent) {
  return tcore::pow(as_type(self, ScalarType::Double),
                    as_type(exponent, ScalarType::Double));
}
Tensor float_power(const Scalar& self, const Tensor& exponent) {
  return tcore::pow(wrapped_scalar_tensor(Scalar(self.to<double>())),
                    as_type(exponent, ScalarType::Double));
}
Tensor float_power(const Tensor& self, const Scalar& exponent) {
  return tcore::pow(as_type(self, ScalarType::Double), Scalar(exponent.to<double>()));
}
namespace {
void check_float_power_base(const Tensor& self) {
  TCORE_CHECK(self.dtype() == ScalarType::Double, "the base given to float_power_ has dtype ", self.dtype(),
              " but the operation's result requires dtype Double");
}
}  // namespace
Tensor float_power_(const Tensor& self, const Tensor& exponent) {
  check_float_power_base(self);
  return tcore::pow_(self, as_type(exponent, ScalarType::Double));
}
Tensor float_power_(const Tensor& self, const Scalar& exponent) {
  check_float_power_base(self);
  return tcore::pow_(self, Scalar(exponent.to<double>()));
}

// self * 2^other in the dtype the two promote to (the default float for two integer dtypes), as
// torch's: float16 by int32 stays float16
namespace {
ScalarType ldexp_dtype(const Tensor& self, const Tensor& other) {
  const ScalarType t = promote_types(self.dtype(), other.dtype());
  return is_integral(t, true) ? default_float_dtype() : t;
}
}  // namespace
// self * 2^other rounded once (math.ldexp's): float32 (and float16/bfloat16) through float64, where
// self and 2^other (other clamped to float64's powers of two, past which a float32 result is 0 or
// inf already) are exact; float64 with 2^other in three normal factors (other clamped to +-2200,
// past which a finite nonzero float64 result is 0 or inf), the last rounding the product. 2^other
// in the dtype itself was 0 past the smallest subnormal (3 * 2^-150 gave 0 for 2^-148) and inf past
// the largest (0 * 2^300 gave NaN).
Tensor ldexp(const Tensor& self, const Tensor& other) {
  const ScalarType t = ldexp_dtype(self, other);
  if (t == ScalarType::Float || t == ScalarType::Half || t == ScalarType::BFloat16) {
    const Tensor e = tcore::clamp(as_type(other, ScalarType::Double), Scalar(-1074.0), Scalar(1023.0));
    return as_type(tcore::mul(as_type(self, ScalarType::Double), tcore::exp2(e)), t);
  }
  if (t == ScalarType::Double) {
    const Tensor e = tcore::clamp(as_type(other, t), Scalar(-2200.0), Scalar(2200.0));
    const Tensor e1 = tcore::trunc(tcore::div(e, Scalar(3.0))), e2 = tcore::trunc(tcore::div(tcore::sub(e, e1), Scalar(2.0)));
    const Tensor e3 = tcore::sub(tcore::sub(e, e1), e2);
    return tcore::mul(tcore::mul(tcore::mul(as_type(self, t), tcore::exp2(e1)), tcore::exp2(e2)), tcore::exp2(e3));
  }
  return tcore::mul(as_type(self, t), tcore::exp2(as_type(other, t)));
}
Tensor ldexp_(const Tensor& self, const Tensor& other) {
  return written_into(self, [&](const Tensor& x) { return ldexp(x, other); });
}

bool is_same_size(const Tensor& self, const Tensor& other) { return self.sizes().vec() == other.sizes().vec(); }

// bool(tensor): its one value is not 0 (NaN is not 0)
bool is_nonzero(const Tensor& self) {
  TCORE_CHECK(self.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  TCORE_CHECK(self.numel() < 2, "Boolean value of Tensor with more than one value is ambiguous");
  return item<double>(self) != 0.0;
}

// every element of a real dtype is real (tcore has no complex dtypes)
Tensor isreal(const Tensor& self) {
  return tcore::ones_like(self, ScalarType::Bool, std::nullopt, std::nullopt, std::nullopt, MemoryFormat::Preserve);
}

}  // namespace tcore::native
