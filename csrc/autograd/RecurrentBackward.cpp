// _lstm_layer's backward (derivatives.yaml). Outside grad mode its kernel (native/cpu/Recurrent.cpp).
// A differentiated backward (create_graph, forward over reverse) needs every value it reads as a
// function of the layer's inputs, which the saved gates and cells are not (outputs without a
// gradient): the steps are recomputed in operators, then walked back in operators, the kernel's
// arithmetic:
//   dc~ = dc + dh o (1 - tanh(c)^2);  di = dc~ g i (1 - i);  df = dc~ c_prev f (1 - f);
//   dg = dc~ i (1 - g^2);  do = dh tanh(c) o (1 - o);  dc_prev = dc~ f;  dh_prev = dG W_hh
// with dW_hh = sum over steps of dG^T h_prev and the input projection's gradient dG.
#include "autograd/FunctionsManual.h"

#include <vector>

#include <tcore/ops/_lstm_layer_backward.h>
#include <tcore/ops/add.h>
#include <tcore/ops/addmm.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/chunk.h>
#include <tcore/ops/mm.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/neg.h>
#include <tcore/ops/select.h>
#include <tcore/ops/sigmoid.h>
#include <tcore/ops/stack.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/t.h>
#include <tcore/ops/tanh.h>
#include <tcore/ops/unbind.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/where.h>
#include <tcore/ops/zeros_like.h>

namespace tcore::autograd::manual {
namespace {

Tensor one_minus(const Tensor& x) { return tcore::add(tcore::neg(x), Scalar(1)); }
// x (1 - x): a sigmoid's derivative from its value
Tensor sigmoid_slope(const Tensor& s) { return tcore::mul(s, one_minus(s)); }
// 1 - x^2: tanh's derivative from its value
Tensor tanh_slope(const Tensor& t) { return one_minus(tcore::mul(t, t)); }

struct Step {
  Tensor h_prev, c_prev, i, f, g, o, c;  // the state it starts from, its gates, its cell
};

std::vector<Step> recomputed_steps(const Tensor& input_projection, const Tensor& hx, const Tensor& cx,
                                   const Tensor& w_hh, const std::optional<Tensor>& b_hh,
                                   const std::vector<Tensor>& alive, bool reverse) {
  const std::vector<Tensor> xs = tcore::unbind(input_projection, 0);
  const int64_t steps = static_cast<int64_t>(xs.size());
  const Tensor w_t = tcore::t(w_hh);
  std::vector<Step> out(xs.size());
  Tensor h = hx, c = cx;
  for (int64_t k = 0; k < steps; ++k) {
    const size_t t = static_cast<size_t>(reverse ? steps - 1 - k : k);
    const Tensor gh = b_hh && b_hh->defined() ? tcore::addmm(*b_hh, h, w_t) : tcore::mm(h, w_t);
    const std::vector<Tensor> g = tcore::chunk(tcore::add(xs[t], gh), 4, 1);
    Step s{h, c, tcore::sigmoid(g[0]), tcore::sigmoid(g[1]), tcore::tanh(g[2]), tcore::sigmoid(g[3]), Tensor()};
    s.c = tcore::add(tcore::mul(s.f, c), tcore::mul(s.i, s.g));
    const Tensor h_next = tcore::mul(s.o, tcore::tanh(s.c));
    h = alive.empty() ? h_next : tcore::where(alive[t], h_next, h);
    c = alive.empty() ? s.c : tcore::where(alive[t], s.c, c);
    out[t] = std::move(s);
  }
  return out;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> lstm_layer_backward(
    const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_projection,
    const Tensor& hx, const Tensor& cx, const Tensor& w_hh, const std::optional<Tensor>& b_hh,
    const std::optional<Tensor>& valid, bool reverse, const Tensor& output, const Tensor& gates, const Tensor& cells,
    std::array<bool, 5> mask) {
  if (!grad_output.defined() && !grad_hy.defined() && !grad_cy.defined()) return {};
  const bool biased = b_hh && b_hh->defined();
  if (!differentiated({&grad_output, &grad_hy, &grad_cy, &input_projection, &hx, &cx, &w_hh})) {
    auto grads = tcore::_lstm_layer_backward(grad_output, grad_hy, grad_cy, hx, cx, w_hh, output, gates, cells,
                                             valid, reverse, biased);
    if (!mask[3]) std::get<3>(grads) = Tensor();
    if (!mask[4]) std::get<4>(grads) = Tensor();
    return grads;
  }
  const std::vector<Tensor> alive =
      valid && valid->defined() ? tcore::unbind(tcore::unsqueeze(*valid, -1), 0) : std::vector<Tensor>();
  const std::vector<Step> steps = recomputed_steps(input_projection, hx, cx, w_hh, b_hh, alive, reverse);
  const int64_t n = static_cast<int64_t>(steps.size());
  Tensor dh = grad_hy.defined() ? grad_hy : tcore::zeros_like(hx);
  Tensor dc = grad_cy.defined() ? grad_cy : tcore::zeros_like(cx);
  std::vector<Tensor> d_gates(steps.size());
  Tensor d_w_hh = tcore::zeros_like(w_hh);
  for (int64_t k = 0; k < n; ++k) {
    const size_t t = static_cast<size_t>(reverse ? k : n - 1 - k);  // the forward's steps, last first
    const Step& s = steps[t];
    if (grad_output.defined()) dh = tcore::add(dh, tcore::select(grad_output, 0, static_cast<int64_t>(t)));
    const Tensor tc = tcore::tanh(s.c);
    const Tensor dcell = tcore::add(dc, tcore::mul(tcore::mul(dh, s.o), tanh_slope(tc)));
    Tensor dg = tcore::cat({tcore::mul(tcore::mul(dcell, s.g), sigmoid_slope(s.i)),
                            tcore::mul(tcore::mul(dcell, s.c_prev), sigmoid_slope(s.f)),
                            tcore::mul(tcore::mul(dcell, s.i), tanh_slope(s.g)),
                            tcore::mul(tcore::mul(dh, tc), sigmoid_slope(s.o))},
                           1);
    Tensor dh_prev = tcore::mm(dg, w_hh), dc_prev = tcore::mul(dcell, s.f);
    if (!alive.empty()) {  // a held state: no gradient to its gates; its gradients pass as they are
      dg = tcore::where(alive[t], dg, tcore::zeros_like(dg));
      dh_prev = tcore::where(alive[t], dh_prev, dh);
      dc_prev = tcore::where(alive[t], dc_prev, dc);
    }
    d_w_hh = tcore::addmm(d_w_hh, tcore::t(dg), s.h_prev);
    d_gates[t] = dg;
    dh = dh_prev;
    dc = dc_prev;
  }
  const Tensor d_input = n > 0 ? tcore::stack(d_gates, 0) : tcore::zeros_like(input_projection);
  const Tensor d_b_hh = biased && mask[4] ? tcore::sum(d_input, IntArrayRef({0, 1}), false, std::nullopt) : Tensor();
  return {d_input, dh, dc, mask[3] ? d_w_hh : Tensor(), d_b_hh};
}

}  // namespace tcore::autograd::manual
