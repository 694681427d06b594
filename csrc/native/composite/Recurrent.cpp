// One recurrent layer in one direction for nn.RNN, LSTM, GRU and their cells (tcore/nn/modules/rnn.py):
// the time loop in C++ over tcore's operators (CompositeImplicitAutograd: its gradient and tangents
// are those of what it calls), where a Python loop paid the interpreter for each operator of each
// step (an LSTM of 200 steps of 8 x 64 ran 5x torch's time). The input's projection for every
// step (x W_ih^T + b_ih) is computed before, by the caller, as one matrix product. An LSTM without
// projection on the CPU runs fused (_lstm_layer), its backward a kernel too.
//   LSTM (gates i, f, g, o): c' = f c + i g, h' = o tanh(c') (h' W_hr^T with a projection)
//   GRU  (gates r, z, n):    n = tanh(x_n + r (h W_hn^T + b_hn)), h' = n + z (h - n)
//   RNN_TANH / RNN_RELU:     h' = act(x + h W_hh^T + b_hh)
#include <string_view>
#include <vector>

#include <tcore/ops/_lstm_layer.h>
#include <tcore/ops/_recurrent_layer_native.h>
#include <tcore/ops/add.h>
#include <tcore/ops/addmm.h>
#include <tcore/ops/chunk.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/mm.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/relu.h>
#include <tcore/ops/sigmoid.h>
#include <tcore/ops/stack.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/t.h>
#include <tcore/ops/tanh.h>
#include <tcore/ops/unbind.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/where.h>

#include "native/TensorUtils.h"
#include "tcore/core/Dispatch.h"  // detail::has_fw_grad

namespace tcore::native {
namespace {

enum class Mode { Tanh, Relu, Lstm, Gru };

Mode mode_of(std::string_view mode) {
  if (mode == "RNN_TANH") return Mode::Tanh;
  if (mode == "RNN_RELU") return Mode::Relu;
  if (mode == "LSTM") return Mode::Lstm;
  TCORE_CHECK_VALUE(mode == "GRU", "_recurrent_layer: unknown mode '", mode, "' (RNN_TANH, RNN_RELU, LSTM, GRU)");
  return Mode::Gru;
}

// h W^T (+ b): W^T is transposed once per layer, not per step
Tensor hidden_product(const Tensor& h, const Tensor& w_t, const std::optional<Tensor>& b) {
  return b && b->defined() ? tcore::addmm(*b, h, w_t) : tcore::mm(h, w_t);
}

// _lstm_layer (native/cpu/Recurrent.cpp) takes an LSTM without projection on the CPU in float32 or
// float64, unless a tangent is on its way: its forward-mode formula is this operator-by-operator form.
bool fused_lstm(const Tensor& x, const Tensor& hx, const Tensor& cx, const Tensor& w_hh,
                const std::optional<Tensor>& b_hh) {
  const Tensor b = b_hh && b_hh->defined() ? *b_hh : Tensor();
  for (const Tensor* t : {&x, &hx, &cx, &w_hh, &b}) {
    if (!t->defined()) continue;
    if (!t->device().is_cpu() || t->dtype() != x.dtype() || detail::has_fw_grad(*t)) return false;
  }
  return x.dtype() == ScalarType::Float || x.dtype() == ScalarType::Double;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _recurrent_layer(const Tensor& input_projection, const Tensor& hx,
                                                    const std::optional<Tensor>& cx, const Tensor& w_hh,
                                                    const std::optional<Tensor>& b_hh, const std::optional<Tensor>& w_hr,
                                                    std::string_view mode, bool reverse,
                                                    const std::optional<Tensor>& valid) {
  const Mode m = mode_of(mode);
  const bool lstm = m == Mode::Lstm;
  TCORE_CHECK_VALUE(input_projection.dim() == 3 && hx.dim() == 2,
                    "_recurrent_layer: expected a 3-D input projection (steps, batch, gates) and a 2-D state, got ",
                    input_projection.dim(), "-D and ", hx.dim(), "-D");
  TCORE_CHECK_VALUE(!lstm || (cx && cx->defined()), "_recurrent_layer: LSTM needs a cell state");
  const bool projected = w_hr && w_hr->defined();
  if (lstm && !projected && fused_lstm(input_projection, hx, *cx, w_hh, b_hh)) {
    auto [output, hy, cy, gates, cells] = tcore::_lstm_layer(input_projection, hx, *cx, w_hh, b_hh, valid, reverse);
    return {output, hy, cy};
  }
  const int64_t steps = input_projection.sizes()[0];
  const Tensor w_t = tcore::t(w_hh);
  const Tensor w_hr_t = projected ? tcore::t(*w_hr) : Tensor();
  Tensor h = hx, c = lstm ? *cx : Tensor();
  // the steps' inputs as one unbind (its backward stacks their gradients once; a select per step
  // made each step's backward a zero tensor of the whole sequence)
  const std::vector<Tensor> inputs = tcore::unbind(input_projection, 0);
  // packed sequences (valid: (steps, batch) bool): a sequence's state stays as it is at the steps
  // past its length, so a forward pass ends at its last step and a reverse one starts there
  const bool masked = valid && valid->defined();
  const std::vector<Tensor> alive = masked ? tcore::unbind(tcore::unsqueeze(*valid, -1), 0) : std::vector<Tensor>();
  std::vector<Tensor> outputs(static_cast<size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t step = reverse ? steps - 1 - k : k;
    const Tensor& x = inputs[static_cast<size_t>(step)];
    const Tensor gh = hidden_product(h, w_t, b_hh);
    Tensor h_next, c_next;
    if (lstm) {
      const std::vector<Tensor> g = tcore::chunk(tcore::add(x, gh), 4, 1);
      c_next = tcore::add(tcore::mul(tcore::sigmoid(g[1]), c), tcore::mul(tcore::sigmoid(g[0]), tcore::tanh(g[2])));
      h_next = tcore::mul(tcore::sigmoid(g[3]), tcore::tanh(c_next));
      if (projected) h_next = tcore::mm(h_next, w_hr_t);
    } else if (m == Mode::Gru) {
      const std::vector<Tensor> gx = tcore::chunk(x, 3, 1), gg = tcore::chunk(gh, 3, 1);
      const Tensor r = tcore::sigmoid(tcore::add(gx[0], gg[0])), z = tcore::sigmoid(tcore::add(gx[1], gg[1]));
      const Tensor n = tcore::tanh(tcore::add(gx[2], tcore::mul(r, gg[2])));
      h_next = tcore::add(n, tcore::mul(z, tcore::sub(h, n)));
    } else {
      const Tensor pre = tcore::add(x, gh);
      h_next = m == Mode::Tanh ? tcore::tanh(pre) : tcore::relu(pre);
    }
    if (masked) {
      const Tensor& on = alive[static_cast<size_t>(step)];
      h = tcore::where(on, h_next, h);
      if (lstm) c = tcore::where(on, c_next, c);
    } else {
      h = h_next;
      c = c_next;
    }
    outputs[static_cast<size_t>(step)] = h;
  }
  const Tensor output = steps > 0 ? tcore::stack(outputs, 0)
                                  : tcore::empty({0, hx.sizes()[0], hx.sizes()[1]}, hx.dtype(), std::nullopt, hx.device());
  return {output, h, lstm ? c : tcore::empty({0}, hx.dtype(), std::nullopt, hx.device())};
}

}  // namespace tcore::native
