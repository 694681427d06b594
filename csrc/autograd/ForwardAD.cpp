// Forward-mode AD: tangents ride on tensors (AutogradMeta::fw_grad) for the current dual
// level; the generated autograd kernels compute each output's tangent from the `result:`
// formulas of derivatives.yaml. One level at a time, as PyTorch today: leaving it drops
// every tangent it set.
#include <mutex>

#include <tcore/ops/add.h>
#include <tcore/ops/alias.h>
#include <tcore/ops/as_strided.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/view.h>
#include <tcore/ops/zeros.h>
#include <tcore/ops/zeros_like.h>

#include "autograd/Views.h"
#include "tcore/autograd/autograd.h"

namespace tcore::autograd {
namespace {

struct DualLevels {
  std::mutex mutex;
  int64_t current = -1;
  int64_t next = 0;
  std::vector<std::weak_ptr<TensorImpl>> holders;  // tensors given a tangent at the current level
};
DualLevels& levels() {
  static DualLevels* l = new DualLevels();
  return *l;
}

void remember(const Tensor& t) {
  DualLevels& l = levels();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.holders.push_back(t.impl_ptr());
}

}  // namespace

int64_t enter_dual_level() {
  DualLevels& l = levels();
  std::lock_guard<std::mutex> lock(l.mutex);
  TCORE_CHECK(l.current < 0, "Nested forward mode AD is not supported at the moment");
  l.current = l.next++;
  return l.current;
}

void exit_dual_level(int64_t level) {
  std::vector<std::weak_ptr<TensorImpl>> holders;
  {
    DualLevels& l = levels();
    std::lock_guard<std::mutex> lock(l.mutex);
    TCORE_CHECK(level == l.current, "Trying to exit a forward AD level that was not the last one that was created. "
                "This is not supported.");
    l.current = -1;
    holders.swap(l.holders);
  }
  for (const auto& weak : holders) {
    if (auto impl = weak.lock()) {
      impl->has_fw_grad = false;
      if (impl->autograd_meta) {
        impl->autograd_meta->fw_grad = Tensor();
        impl->autograd_meta->fw_level = -1;
      }
    }
  }
}

int64_t current_dual_level() {
  DualLevels& l = levels();
  std::lock_guard<std::mutex> lock(l.mutex);
  return l.current;
}

Tensor fw_grad(const Tensor& t) {
  if (!t.defined() || !t.impl()->has_fw_grad) return Tensor();
  return t.impl()->autograd_meta->fw_grad;
}

Tensor fw_grad_or_zeros(const Tensor& t) {
  if (!t.defined()) return Tensor();
  Tensor g = fw_grad(t);
  return g.defined() ? g : tcore::zeros_like(t);
}

std::vector<Tensor> fw_grads_or_zeros(ArrayRef<Tensor> ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(fw_grad_or_zeros(t));
  return out;
}

Tensor fw_tangent_arg(const Tensor& t) {
  if (!t.defined() || !is_floating(t.dtype())) return t;
  return fw_grad_or_zeros(t);
}

std::vector<Tensor> fw_tangent_args(ArrayRef<Tensor> ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(fw_tangent_arg(t));
  return out;
}

namespace {

// torch's has_same_meta: sizes, strides, offset and storage size alike
bool same_layout(const Tensor& a, const Tensor& b) {
  return a.sizes().vec() == b.sizes().vec() && a.strides().vec() == b.strides().vec() &&
         a.storage_offset() == b.storage_offset() && a.storage().nbytes() == b.storage().nbytes();
}

// The tangent laid out as t (torch's _new_zeros_with_same_feature_meta + copy_): a storage of
// t's size, t's strides and offset over it. An expanded tangent (a broadcasting formula's, a
// make_dual of an expand) then never takes one element's writes for several, a tangent of
// another layout (make_dual of a transposed one) gives t's views the same layout as t's.
Tensor laid_out_as(const Tensor& t, const Tensor& tangent) {
  if (same_layout(t, tangent)) return tangent;
  AutoDispatchBelowAutograd below;
  const int64_t storage_elements = static_cast<int64_t>(t.storage().nbytes() / t.element_size());
  Tensor storage = tcore::zeros({storage_elements}, tangent.dtype(), std::nullopt, tangent.device());
  Tensor out = tcore::as_strided(storage, t.sizes(), t.strides(), t.storage_offset());
  tcore::copy_(out, tangent.sizes().vec() == t.sizes().vec() ? tangent : tcore::expand(tangent, t.sizes()));
  return out;
}

}  // namespace

void set_fw_grad(const Tensor& t, const Tensor& tangent) {
  if (!t.defined() || !tangent.defined() || !is_floating(t.dtype())) return;
  const int64_t level = current_dual_level();
  if (level < 0) return;
  Tensor g = laid_out_as(t, tangent);
  AutogradMeta& m = meta(t);
  const bool fresh = !t.impl()->has_fw_grad;
  m.fw_grad = g;
  m.fw_level = level;
  t.impl()->has_fw_grad = true;
  if (fresh) remember(t);
}

void set_fw_grads(const std::vector<Tensor>& ts, const std::vector<Tensor>& tangents) {
  for (size_t i = 0; i < ts.size() && i < tangents.size(); ++i) set_fw_grad(ts[i], tangents[i]);
}

void set_fw_grad_inplace(const Tensor& self, const Tensor& tangent) {
  if (!tangent.defined() || !is_floating(self.dtype())) return;
  Tensor current = fw_grad(self);
  if (!current.defined() && self.impl()->view_base) {
    // a view gets its tangent as the same view of its base's (zeros until now): a write
    // through the view then shows in the base's tangent, as in the base's value
    Tensor base(self.impl()->view_base);
    if (!fw_grad(base).defined()) set_fw_grad(base, tcore::zeros_like(base));
    const ViewFn replay = meta(self).view_fn ? view_replay(self) : ViewFn();
    if (replay) {
      NoGradGuard no_grad;
      current = replay(fw_grad(base));
      set_fw_grad(self, current);
    }
  }
  if (current.defined()) {
    AutoDispatchBelowAutograd below;  // the tangent's own history is not recorded
    tcore::copy_(current, tangent);
    return;
  }
  set_fw_grad(self, tangent);
}

Tensor fw_accumulate(const Tensor& acc, const Tensor& term) {
  if (!term.defined()) return acc;
  if (!acc.defined()) return term;
  return tcore::add(acc, term, 1);
}

void fw_not_implemented(const char* op) {
  throw Error(detail::str_cat("the forward-mode derivative (jvp) of '", op,
                              "' is not implemented: it has no `result:` formula in derivatives.yaml"));
}

Tensor make_dual(const Tensor& primal, const Tensor& tangent, int64_t level) {
  TCORE_CHECK(level >= 0 && level == current_dual_level(), "make_dual: no forward AD level ", level,
              " is active (use `with dual_level():`)");
  TCORE_CHECK(is_floating(primal.dtype()), "make_dual: expected a floating point primal, got ", primal.dtype());
  TCORE_CHECK(tangent.sizes().size() == primal.sizes().size() &&
                  std::equal(tangent.sizes().begin(), tangent.sizes().end(), primal.sizes().begin()),
              "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
              "not supported. Tensor is of size ", shape_str(primal.sizes()), " while the given forward gradient is "
              "of size ", shape_str(tangent.sizes()), ".");
  TCORE_CHECK(tangent.dtype() == primal.dtype(), "make_dual: the tangent has dtype ", tangent.dtype(),
              " but the primal has dtype ", primal.dtype());
  TCORE_CHECK(!fw_grad(primal).defined(), "make_dual: the primal already has a tangent at this level");
  Tensor dual = tcore::alias(primal);  // keeps primal's reverse-mode history
  set_fw_grad(dual, tangent);
  return dual;
}

std::pair<Tensor, Tensor> unpack_dual(const Tensor& t, int64_t level) {
  Tensor tangent = level == current_dual_level() ? fw_grad(t) : Tensor();
  Tensor primal = tcore::alias(t);
  if (primal.impl()->has_fw_grad) {  // the view got the tangent's view: the primal has none
    primal.impl()->has_fw_grad = false;
    meta(primal).fw_grad = Tensor();
  }
  return {primal, tangent};
}

}  // namespace tcore::autograd
