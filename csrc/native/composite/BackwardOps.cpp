// Backward operators that PyTorch has as operators (value_selecting_reduction_backward,
// cumprod_backward): compositions of differentiable operators, so that second derivatives follow
// from what they run, callable by formulas (derivatives.yaml) and by users; and the grad_input=
// forms of the activations' backward kernels (native/cpu/Activation.cpp).
#include <string_view>
#include <vector>

#include <tcore/ops/_log_softmax_backward_data.h>
#include <tcore/ops/_log_softmax_backward_data_native.h>
#include <tcore/ops/_softmax_backward_data.h>
#include <tcore/ops/_softmax_backward_data_native.h>
#include <tcore/ops/_to_copy.h>
#include <tcore/ops/add.h>
#include <tcore/ops/any.h>
#include <tcore/ops/arange.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/cumprod.h>
#include <tcore/ops/cumprod_backward_native.h>
#include <tcore/ops/cumsum.h>
#include <tcore/ops/div.h>
#include <tcore/ops/elu_backward.h>
#include <tcore/ops/elu_backward_native.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/erf.h>
#include <tcore/ops/exp.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/gelu_backward.h>
#include <tcore/ops/gelu_backward_native.h>
#include <tcore/ops/leaky_relu_backward.h>
#include <tcore/ops/leaky_relu_backward_native.h>
#include <tcore/ops/mse_loss_backward.h>
#include <tcore/ops/mse_loss_backward_native.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/ones_like.h>
#include <tcore/ops/scatter_add.h>
#include <tcore/ops/silu_backward.h>
#include <tcore/ops/silu_backward_native.h>
#include <tcore/ops/softplus_backward.h>
#include <tcore/ops/softplus_backward_native.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/tanh.h>
#include <tcore/ops/threshold_backward.h>
#include <tcore/ops/threshold_backward_native.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/value_selecting_reduction_backward_native.h>
#include <tcore/ops/view.h>
#include <tcore/ops/where.h>
#include <tcore/ops/zeros.h>

#include "native/TensorUtils.h"
#include "tcore/core/Autogen.h"

namespace tcore::native {
namespace {

// The gradient of cumsum along d: the sums from each position to the end.
Tensor reversed_cumsum(const Tensor& grad, int64_t d) {
  return tcore::add(tcore::sub(tcore::sum(grad, IntArrayRef({d}), true, std::nullopt), tcore::cumsum(grad, d, std::nullopt), 1),
                    grad, 1);
}

}  // namespace

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim) {
  if (sizes.empty()) return grad;
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  const Tensor g = keepdim ? grad : tcore::unsqueeze(grad, d);
  const Tensor idx = keepdim ? indices : tcore::unsqueeze(indices, d);
  return tcore::scatter_add(tcore::zeros(sizes, grad.dtype(), std::nullopt, grad.device()), d, idx, g);
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor any_zero = tcore::any(tcore::eq(self, 0));
  if (!any_zero.device().is_cpu()) {  // read on the host, never through a device pointer
    any_zero = tcore::_to_copy(any_zero, std::nullopt, std::nullopt, Device(DeviceType::CPU), std::nullopt, false,
                               std::nullopt);
  }
  const bool zeros = *static_cast<const bool*>(any_zero.data_ptr());
  if (!zeros) return tcore::div(reversed_cumsum(tcore::mul(grad, result), d), self);
  // d cumprod_i / d x_j = prod_{k <= i, k != j} x_k for i >= j: one cumprod per position j
  const int64_t n = self.sizes()[d];
  std::vector<int64_t> shape(self.dim(), 1);
  shape[d] = n;
  const Tensor pos = tcore::view(tcore::arange(n, ScalarType::Long, std::nullopt, self.device()), shape);
  std::vector<Tensor> parts;
  for (int64_t j = 0; j < n; ++j) {
    const Tensor without_j = tcore::where(tcore::eq(pos, j), tcore::ones_like(self), self);
    const Tensor terms = tcore::mul(tcore::mul(grad, tcore::cumprod(without_j, d, std::nullopt)), tcore::ge(pos, j));
    parts.push_back(tcore::sum(terms, IntArrayRef({d}), true, std::nullopt));
  }
  return tcore::cat(parts, d);
}

// The grad_input= forms (PyTorch's out= overloads of these backwards, with its argument name): the
// functional result written into grad_input as a generated out= kernel writes it, the dtype checked
// first as torch does (then the resize, with a warning when grad_input had elements, and copy_
// through the dispatcher, so Meta and lazy tensors take it too).
namespace {
const Tensor& write_grad_input(const Tensor& grad_input, const Tensor& result, const char* op) {
  TCORE_CHECK_TYPE(can_cast(result.dtype(), grad_input.dtype()), op, ": result type ", result.dtype(),
                   " can't be cast to the desired output type ", grad_input.dtype());
  autogen::resize_out(grad_input, result.sizes(), op);
  ops::copy_::call(grad_input, result, false);
  return grad_input;
}
}  // namespace

Tensor gelu_backward_out(const Tensor& grad_output, const Tensor& self, std::string_view approximate,
                         const Tensor& grad_input) {
  return write_grad_input(grad_input, tcore::gelu_backward(grad_output, self, approximate), "gelu_backward");
}

Tensor mse_loss_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction,
                             const Tensor& grad_input) {
  return write_grad_input(grad_input, tcore::mse_loss_backward(grad_output, self, target, reduction),
                          "mse_loss_backward");
}

Tensor _softmax_backward_data_out(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype,
                                  const Tensor& grad_input) {
  return write_grad_input(grad_input, tcore::_softmax_backward_data(grad_output, output, dim, input_dtype),
                          "_softmax_backward_data");
}

Tensor _log_softmax_backward_data_out(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                      ScalarType input_dtype, const Tensor& out) {
  return write_grad_input(out, tcore::_log_softmax_backward_data(grad_output, output, dim, input_dtype),
                          "_log_softmax_backward_data");
}

Tensor leaky_relu_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                               bool self_is_result, const Tensor& grad_input) {
  return write_grad_input(grad_input, tcore::leaky_relu_backward(grad_output, self, negative_slope, self_is_result),
                          "leaky_relu_backward");
}

Tensor silu_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& grad_input) {
  return write_grad_input(grad_input, tcore::silu_backward(grad_output, self), "silu_backward");
}

Tensor softplus_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& beta, const Scalar& threshold,
                             const Tensor& grad_input) {
  return write_grad_input(grad_input, tcore::softplus_backward(grad_output, self, beta, threshold), "softplus_backward");
}

Tensor elu_backward_out(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                        bool is_result, const Tensor& self_or_result, const Tensor& grad_input) {
  return write_grad_input(grad_input,
                          tcore::elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result),
                          "elu_backward");
}

Tensor threshold_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& threshold,
                              const Tensor& grad_input) {
  return write_grad_input(grad_input, tcore::threshold_backward(grad_output, self, threshold), "threshold_backward");
}

}  // namespace tcore::native
