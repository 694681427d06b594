// LSTM's layer in one direction, fused (float32/float64): each step one product h W_hh^T into
// the gates (on b_hh) and one pass over each sequence's gates computing the cell,
//   i, f, o = sigmoid(.), g = tanh(.);  c' = f c + i g;  h' = o tanh(c'),
// where the operator-by-operator form (composite/Recurrent.cpp) made a dozen tensors a step. The
// activated gates and the cells are kept for the backward, which walks the steps back with one
// product dG W_hh a step and ends with one product for W_hh's gradient over every step at once
// (dW_hh = dG^T H_prev); the input projection's gradient is dG itself. Packed sequences (valid):
// a sequence past its length keeps its state, and its gradient passes through unchanged.
#include <cmath>
#include <vector>

#include <tcore/ops/_lstm_layer_backward_native.h>
#include <tcore/ops/_lstm_layer_native.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/select.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/t.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/view.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/LinearAlgebra.h"
#include "native/cpu/VecMath.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// out[j] = sigmoid(in[j]) / tanh(in[j]) over a run: the vector functions of the unary kernels
// (the same values as tcore.sigmoid / tcore.tanh), else libm's
template <typename T>
void sigmoid_run(T* out, const T* in, int64_t n) {
  if constexpr (vec::supports<T>) {
    vec::map<vec::Sigmoid>(out, in, n);
  } else {
    for (int64_t j = 0; j < n; ++j) out[j] = T(1) / (T(1) + std::exp(-in[j]));
  }
}

template <typename T>
void tanh_run(T* out, const T* in, int64_t n) {
  if constexpr (vec::supports<T>) {
    vec::map<vec::Tanh>(out, in, n);
  } else {
    for (int64_t j = 0; j < n; ++j) out[j] = std::tanh(in[j]);
  }
}

struct Shapes {
  int64_t steps, batch, hidden;
};

Shapes check_layer(const Tensor& input_projection, const Tensor& hx, const Tensor& cx, const Tensor& w_hh,
                   const std::optional<Tensor>& b_hh, const std::optional<Tensor>& valid, const char* op) {
  TCORE_CHECK_VALUE(input_projection.dim() == 3 && hx.dim() == 2 && cx.dim() == 2 && w_hh.dim() == 2, op,
                    ": expected a 3-D input projection and 2-D states and weight");
  const int64_t steps = input_projection.sizes()[0], batch = hx.sizes()[0], hidden = hx.sizes()[1];
  TCORE_CHECK_VALUE(input_projection.sizes()[1] == batch && input_projection.sizes()[2] == 4 * hidden &&
                        cx.sizes().vec() == hx.sizes().vec() && w_hh.sizes()[0] == 4 * hidden &&
                        w_hh.sizes()[1] == hidden,
                    op, ": shapes do not match: input projection ", shape_str(input_projection.sizes()), ", hx ",
                    shape_str(hx.sizes()), ", cx ", shape_str(cx.sizes()), ", w_hh ", shape_str(w_hh.sizes()));
  for (const Tensor* t : {&hx, &cx, &w_hh})
    TCORE_CHECK_TYPE(t->dtype() == input_projection.dtype(), op, ": expected every tensor of dtype ",
                     to_string(input_projection.dtype()), ", got ", to_string(t->dtype()));
  if (b_hh && b_hh->defined()) {
    TCORE_CHECK_VALUE(b_hh->dim() == 1 && b_hh->sizes()[0] == 4 * hidden, op, ": expected b_hh of shape [",
                      4 * hidden, "], got ", shape_str(b_hh->sizes()));
    TCORE_CHECK_TYPE(b_hh->dtype() == input_projection.dtype(), op, ": expected b_hh of dtype ",
                     to_string(input_projection.dtype()), ", got ", to_string(b_hh->dtype()));
  }
  if (valid && valid->defined()) {
    TCORE_CHECK_VALUE(valid->dtype() == ScalarType::Bool && valid->dim() == 2 && valid->sizes()[0] == steps &&
                          valid->sizes()[1] == batch,
                      op, ": expected valid a bool (steps, batch) mask, got ", shape_str(valid->sizes()));
  }
  return {steps, batch, hidden};
}

const bool* valid_data(const std::optional<Tensor>& valid, Tensor& held) {
  if (!valid || !valid->defined()) return nullptr;
  held = contiguous_copy(*valid);
  return held.data_ptr<bool>();
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> _lstm_layer(const Tensor& input_projection, const Tensor& hx,
                                                               const Tensor& cx, const Tensor& w_hh,
                                                               const std::optional<Tensor>& b_hh,
                                                               const std::optional<Tensor>& valid, bool reverse) {
  const auto [steps, batch, hidden] = check_layer(input_projection, hx, cx, w_hh, b_hh, valid, "_lstm_layer");
  const ScalarType dtype = input_projection.dtype();
  const Tensor x = contiguous_copy(input_projection);
  Tensor output = empty_cpu({steps, batch, hidden}, dtype), cells = empty_cpu({steps, batch, hidden}, dtype);
  Tensor gates = empty_cpu({steps, batch, 4 * hidden}, dtype);
  const Tensor hidden_gates = empty_cpu({batch, 4 * hidden}, dtype), w_t = tcore::t(w_hh);
  const bool biased = b_hh && b_hh->defined();
  const Tensor bias = biased ? contiguous_copy(*b_hh) : Tensor();
  Tensor valid_held;
  const bool* on = valid_data(valid, valid_held);
  Tensor h = contiguous_copy(hx), c = contiguous_copy(cx);
  dispatch_floating(dtype, "_lstm_layer", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t G = 4 * hidden;
    std::vector<T> tanh_c(static_cast<size_t>(hidden));
    T* hg = hidden_gates.data_ptr<T>();
    for (int64_t k = 0; k < steps; ++k) {
      const int64_t t = reverse ? steps - 1 - k : k;
      if (biased) {  // the gates on b_hh, as addmm(b_hh, h, W_hh^T)
        for (int64_t b = 0; b < batch; ++b) std::copy_n(bias.data_ptr<T>(), G, hg + b * G);
      }
      products_into(h, w_t, hidden_gates, Scalar(int64_t{1}), Scalar(int64_t{biased ? 1 : 0}));
      const T* h_prev = h.data_ptr<T>();
      const T* c_prev = c.data_ptr<T>();
      for (int64_t b = 0; b < batch; ++b) {
        T* gate = gates.data_ptr<T>() + (t * batch + b) * G;
        T* h_out = output.data_ptr<T>() + (t * batch + b) * hidden;
        T* c_out = cells.data_ptr<T>() + (t * batch + b) * hidden;
        const T* hb = h_prev + b * hidden;
        const T* cb = c_prev + b * hidden;
        if (on && !on[t * batch + b]) {  // past the sequence's length: its state holds
          std::copy_n(hb, hidden, h_out);
          std::copy_n(cb, hidden, c_out);
          std::fill_n(gate, G, T(0));
          continue;
        }
        const T* xg = x.data_ptr<T>() + (t * batch + b) * G;
        for (int64_t j = 0; j < G; ++j) gate[j] = xg[j] + hg[b * G + j];
        sigmoid_run(gate, gate, 2 * hidden);                            // i, f
        tanh_run(gate + 2 * hidden, gate + 2 * hidden, hidden);         // g
        sigmoid_run(gate + 3 * hidden, gate + 3 * hidden, hidden);      // o
        const T *i = gate, *f = gate + hidden, *g = gate + 2 * hidden, *o = gate + 3 * hidden;
        for (int64_t j = 0; j < hidden; ++j) c_out[j] = f[j] * cb[j] + i[j] * g[j];
        tanh_run(tanh_c.data(), c_out, hidden);
        for (int64_t j = 0; j < hidden; ++j) h_out[j] = o[j] * tanh_c[static_cast<size_t>(j)];
      }
      h = tcore::select(output, 0, t);
      c = tcore::select(cells, 0, t);
    }
  });
  return {output, copy_of(h), copy_of(c), gates, cells};  // (fresh: outputs never alias)
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> _lstm_layer_backward(
    const std::optional<Tensor>& grad_output, const std::optional<Tensor>& grad_hy,
    const std::optional<Tensor>& grad_cy, const Tensor& hx, const Tensor& cx, const Tensor& w_hh,
    const Tensor& output, const Tensor& gates, const Tensor& cells, const std::optional<Tensor>& valid, bool reverse,
    bool has_bias) {
  const auto [steps, batch, hidden] =
      check_layer(gates, hx, cx, w_hh, std::nullopt, valid, "_lstm_layer_backward");
  const ScalarType dtype = gates.dtype();
  const auto given = [&](const std::optional<Tensor>& g) { return g && g->defined(); };
  const Tensor go = given(grad_output) ? contiguous_copy(*grad_output) : Tensor();
  Tensor dh = given(grad_hy) ? copy_of(*grad_hy) : zeros_cpu({batch, hidden}, dtype);
  Tensor dc = given(grad_cy) ? copy_of(*grad_cy) : zeros_cpu({batch, hidden}, dtype);
  Tensor dh_next = empty_cpu({batch, hidden}, dtype);
  const Tensor d_gates = empty_cpu({steps, batch, 4 * hidden}, dtype);
  const Tensor g_all = contiguous_copy(gates), c_all = contiguous_copy(cells), cx_c = contiguous_copy(cx);
  Tensor valid_held;
  const bool* on = valid_data(valid, valid_held);
  dispatch_floating(dtype, "_lstm_layer_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t G = 4 * hidden;
    std::vector<T> tanh_c(static_cast<size_t>(hidden));
    for (int64_t k = 0; k < steps; ++k) {
      const int64_t t = reverse ? k : steps - 1 - k;  // the forward's steps, last first
      const int64_t prev = reverse ? t + 1 : t - 1;
      const T* c_prev_all = (prev >= 0 && prev < steps) ? c_all.data_ptr<T>() + prev * batch * hidden : cx_c.data_ptr<T>();
      T* dh_p = dh.data_ptr<T>();
      T* dc_p = dc.data_ptr<T>();
      for (int64_t b = 0; b < batch; ++b) {
        T* dhb = dh_p + b * hidden;
        T* dcb = dc_p + b * hidden;
        if (go.defined()) {
          const T* gob = go.data_ptr<T>() + (t * batch + b) * hidden;
          for (int64_t j = 0; j < hidden; ++j) dhb[j] += gob[j];
        }
        T* dg = d_gates.data_ptr<T>() + (t * batch + b) * G;
        if (on && !on[t * batch + b]) {  // a held state: its gradients pass to the step before
          std::fill_n(dg, G, T(0));
          continue;
        }
        const T* gate = g_all.data_ptr<T>() + (t * batch + b) * G;
        const T *i = gate, *f = gate + hidden, *g = gate + 2 * hidden, *o = gate + 3 * hidden;
        const T* cb = c_all.data_ptr<T>() + (t * batch + b) * hidden;
        const T* c_prev = c_prev_all + b * hidden;
        tanh_run(tanh_c.data(), cb, hidden);
        for (int64_t j = 0; j < hidden; ++j) {
          const T tc = tanh_c[static_cast<size_t>(j)];
          const T dcell = dcb[j] + dhb[j] * o[j] * (T(1) - tc * tc);
          dg[j] = dcell * g[j] * i[j] * (T(1) - i[j]);
          dg[hidden + j] = dcell * c_prev[j] * f[j] * (T(1) - f[j]);
          dg[2 * hidden + j] = dcell * i[j] * (T(1) - g[j] * g[j]);
          dg[3 * hidden + j] = dhb[j] * tc * o[j] * (T(1) - o[j]);
          dcb[j] = dcell * f[j];
        }
      }
      // the previous state's gradient: dG W_hh, or (a held state) the gradient as it is
      products_into(tcore::select(d_gates, 0, t), w_hh, dh_next);
      if (on) {
        T* next = dh_next.data_ptr<T>();
        for (int64_t b = 0; b < batch; ++b)
          if (!on[t * batch + b]) std::copy_n(dh_p + b * hidden, hidden, next + b * hidden);
      }
      std::swap(dh, dh_next);
    }
  });
  // W_hh's gradient over every step at once: the state each step started from, in step order
  const Tensor d_w_hh = zeros_cpu({4 * hidden, hidden}, dtype);
  const Tensor flat_dg = tcore::view(d_gates, {steps * batch, 4 * hidden});
  if (steps > 0) {
    const Tensor first = tcore::unsqueeze(hx, 0);
    const Tensor h_prev = steps == 1 ? first
                          : reverse ? tcore::cat({tcore::narrow(output, 0, 1, steps - 1), first}, 0)
                                    : tcore::cat({first, tcore::narrow(output, 0, 0, steps - 1)}, 0);
    products_into(tcore::t(flat_dg), tcore::view(contiguous_copy(h_prev), {steps * batch, hidden}), d_w_hh);
  }
  const Tensor d_b_hh = has_bias ? tcore::sum(flat_dg, IntArrayRef({0}), false, std::nullopt) : Tensor();
  return {d_gates, dh, dc, d_w_hh, d_b_hh};
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
