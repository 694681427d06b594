// Autograd on views and in-place operations (PyTorch's differentiable views):
//
// * as_view: the generated in-place-or-view kernels make every output of a view operator
//   remember its base (t._base, never itself a view) and a replay function base -> view
//   (the view operator again with its arguments, composed along chains of views). Views
//   share the base's version counter (make_view), so an in-place write anywhere shows.
// * An in-place operation on a view rebases the history of the base: the base's grad_fn
//   becomes a CopySlices node that runs the operation's backward on the view's part of
//   the gradient and passes the rest through (rebase_history).
// * A view whose base (or another view of it) was written in place since its grad_fn was
//   recorded regenerates grad_fn by replaying the view on the base (view_grad_fn).
// * PyTorch's errors: in-place on a leaf or a view of a leaf that requires grad, on a view
//   made in no_grad mode, on an output of a multi-output view operator.
#include <algorithm>

#include <tcore/ops/as_strided.h>
#include <tcore/ops/clone.h>
#include <tcore/ops/empty_strided.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/zero.h>

#include "autograd/Views.h"

namespace tcore::autograd {
namespace {

// base's gradient (its shape) -> the gradients of the in-place node's inputs, the view's
// part routed through the node, the rest of the base's gradient untouched.
class CopySlices final : public Node {
 public:
  // by_geometry: view_fn is as_strided by the view's geometry, relative to a buffer laid out as
  // the base (its strides), which the base's gradient is copied into first
  CopySlices(const Tensor& base, ViewFn view_fn, std::shared_ptr<Node> fn, bool by_geometry)
      : view_fn_(std::move(view_fn)), fn_(std::move(fn)), by_geometry_(by_geometry),
        base_sizes_(base.sizes().vec()), base_strides_(base.strides().vec()) {
    add_input_metadata(base);
    next_edges.push_back(gradient_edge(base));  // the base's history before the write
    for (size_t i = 1; i < fn_->next_edges.size(); ++i) next_edges.push_back(fn_->next_edges[i]);
  }
  std::string name() const override { return "CopySlices"; }
  void release_variables() override { fn_->release_variables(); }

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    std::vector<Tensor> out(next_edges.size());
    const Tensor& grad = grads.at(0);
    if (!grad.defined()) return out;
    Tensor result;
    if (by_geometry_) {
      result = tcore::empty_strided(base_sizes_, base_strides_, grad.dtype(), std::nullopt, grad.device());
      tcore::copy_(result, grad);
    } else {
      result = tcore::clone(grad, MemoryFormat::Contiguous);
    }
    Tensor grad_slice = view_fn_(result);
    std::vector<Tensor> res = fn_->apply({tcore::clone(grad_slice, MemoryFormat::Contiguous)});
    for (size_t i = 0; i < res.size() && i < out.size(); ++i) {
      if (!should_compute_output(i)) continue;
      if (i == 0) {
        // the written part of the base got its value from the operation: its gradient is
        // the operation's gradient w.r.t. the view's old value (zero when there is none)
        if (res[0].defined()) tcore::copy_(grad_slice, res[0]);
        else tcore::zero_(grad_slice);
        out[0] = result;
      } else {
        out[i] = std::move(res[i]);
      }
    }
    return out;
  }

 private:
  ViewFn view_fn_;
  std::shared_ptr<Node> fn_;
  bool by_geometry_;
  std::vector<int64_t> base_sizes_, base_strides_;
};

// How torch's messages name a view: "Output 1 of Unbind" (the node's name without its
// "Backward<n>"), or, made where nothing required grad, as if made in no_grad mode.
std::string view_named(const AutogradMeta& m, const char* modified) {
  if (!m.grad_fn) return detail::str_cat("A view was created in no_grad mode and ", modified, " with grad mode enabled");
  std::string name = m.grad_fn->name();
  const size_t cut = name.rfind("Backward");
  if (cut != std::string::npos && name.find_first_not_of("0123456789", cut + 8) == std::string::npos) name.resize(cut);
  return detail::str_cat("Output ", m.output_nr, " of ", name, " is a view and ", modified);
}

const char* kNoGradAdvice =
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
    "both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked).";

// PyTorch's handle_view_on_rebase: views that may not be written in place (directly, or
// indirectly through their base or another view of it).
void check_view_rebase(const AutogradMeta& m, bool indirect) {
  switch (m.creation_meta) {
    case CreationMeta::Default:
      return;
    case CreationMeta::MultiOutputNode:
      throw Error(detail::str_cat(
          view_named(m, indirect ? "its base or another view of its base has been modified inplace"
                                 : "is being modified inplace"),
          ". This view is the output of a function that returns multiple views. Such functions do not allow the "
          "output views to be modified inplace. You should replace the inplace operation by an out-of-place one."));
    case CreationMeta::InCustomFunction:
      throw Error(detail::str_cat(
          view_named(m, indirect ? "its base or another view of its base has been modified inplace"
                                 : "is being modified inplace"),
          ". This view was created inside a custom Function (or because an input was returned as-is) and the "
          "autograd logic to handle view+inplace would override the custom backward associated with the custom "
          "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the "
          "output of the custom Function."));
    case CreationMeta::NoGradMode:
      throw Error(detail::str_cat(
          "A view was created in no_grad mode and ",
          indirect ? "its base or another view of its base has been modified inplace with grad mode enabled."
                   : "is being modified inplace with grad mode enabled.",
          kNoGradAdvice));
  }
}

// Moves t's retain_grad hook to its new grad_fn (the retained gradient is the current value's).
void move_retain_hook(const Tensor& t, AutogradMeta& m) {
  if (!m.retains_grad) return;
  if (auto old = m.retain_hook_node.lock()) {
    for (auto& slot : old->pre_hooks) slot.remove(m.retain_hook);
  }
  m.retains_grad = false;
  retain_grad(t);
}

bool same(IntArrayRef a, const std::vector<int64_t>& b) {
  return a.size() == b.size() && std::equal(b.begin(), b.end(), a.begin());
}

// whether base's geometry is still the one m's replay was made from
bool restrided_since(const TensorImpl& base, const AutogradMeta& m) {
  return !same(base.sizes(), m.base_sizes) || !same(base.strides(), m.base_strides) ||
         base.storage_offset() != m.base_offset;
}

// The replay of view t from its base as the base is now: its view operators again, or, after the
// base was restrided in place (base.t_(): those operators would pick other elements) or when
// as_strided made the view, as_strided by t's own geometry, its offset relative to the base's
// (the base itself, or a buffer laid out as the base: CopySlices).
ViewFn current_replay(const Tensor& t, const AutogradMeta& m, const Tensor& base, bool& by_geometry) {
  const bool restrided = restrided_since(*base.impl(), m);
  by_geometry = restrided || m.replay_by_geometry;
  if (!by_geometry) return m.view_fn;
  return [sizes = t.sizes().vec(), strides = t.strides().vec(),
          offset = t.storage_offset() - base.storage_offset()](const Tensor& r) {
    return tcore::as_strided(r, sizes, strides, r.storage_offset() + offset);
  };
}

void record_base_geometry(AutogradMeta& m, const TensorImpl& base) {
  m.base_sizes = base.sizes().vec();
  m.base_strides = base.strides().vec();
  m.base_offset = base.storage_offset();
}

}  // namespace

ViewFn view_replay(const Tensor& t) {
  bool by_geometry = false;
  return current_replay(t, meta(t), Tensor(t.impl()->view_base), by_geometry);
}

void as_view(const Tensor& base, const Tensor& output, ViewFn fn, CreationMeta creation, bool by_geometry) {
  if (!output.defined() || !base.defined() || output.is_same(base)) return;
  TensorImpl* b = base.impl();
  std::shared_ptr<TensorImpl> root = b->view_base ? b->view_base : base.impl_ptr();
  if (output.impl() == root.get()) return;
  ViewFn replay = std::move(fn);
  if (b->view_base && b->autograd_meta && b->autograd_meta->view_fn) {
    const AutogradMeta& bm = *b->autograd_meta;
    replay = [prev = bm.view_fn, step = std::move(replay)](const Tensor& r) { return step(prev(r)); };
    if (creation == CreationMeta::Default) creation = bm.creation_meta;  // a view of a special view is special
    // (a base restrided since its own view_fn was made: the chain is wrong from the start)
    by_geometry = by_geometry || bm.replay_by_geometry || restrided_since(*root, bm);
  }
  output.impl()->view_base = std::move(root);
  AutogradMeta& m = meta(output);
  m.view_fn = std::move(replay);
  m.replay_by_geometry = by_geometry;
  record_base_geometry(m, *output.impl()->view_base);
  m.creation_meta = GradMode::is_enabled() ? creation : CreationMeta::NoGradMode;
  m.attr_version = output.version();
}

Tensor view_base(const Tensor& t) {
  return t.defined() && t.impl()->view_base ? Tensor(t.impl()->view_base) : Tensor();
}

void update_view_fn(const Tensor& self, ViewFn then, bool by_geometry) {
  if (!self.impl()->view_base) return;
  AutogradMeta& m = meta(self);
  if (!m.view_fn) return;
  m.view_fn = [prev = m.view_fn, step = std::move(then)](const Tensor& r) { return step(prev(r)); };
  if (by_geometry) m.replay_by_geometry = true;
}

std::shared_ptr<Node> view_grad_fn(const Tensor& t, AutogradMeta& m) {
  const std::shared_ptr<TensorImpl>& base_impl = t.impl()->view_base;
  if (!m.grad_fn && !base_impl->requires_grad) return nullptr;  // nothing to regenerate from
  check_view_rebase(m, true);
  std::shared_ptr<Node> fresh;
  uint32_t nr = 0;
  {
    AutoGradMode grad_mode(true);  // also from the engine, which may run with grad mode off
    const Tensor base(base_impl);
    bool by_geometry = false;
    Tensor replayed = current_replay(t, m, base, by_geometry)(base);
    if (auto& rm = replayed.impl()->autograd_meta) {
      fresh = rm->grad_fn;
      nr = rm->output_nr;
    }
  }
  m.grad_fn = std::move(fresh);
  m.output_nr = nr;
  m.attr_version = t.version();
  t.impl()->requires_grad = m.grad_fn != nullptr;
  move_retain_hook(t, m);
  return m.grad_fn;
}

void check_inplace(const Tensor& self, bool any_requires_grad, const char* op) {
  if (!any_requires_grad || !GradMode::is_enabled()) return;
  TensorImpl* impl = self.impl();
  if (impl->view_base && impl->autograd_meta && impl->autograd_meta->view_fn) {
    check_view_rebase(*impl->autograd_meta, false);
    const Tensor base(impl->view_base);
    TCORE_CHECK(!(self.requires_grad() && is_leaf(base) && base.impl()->requires_grad),
                "a view of a leaf Variable that requires grad is being used in an in-place operation (", op, ").");
  }
  TCORE_CHECK(!(self.requires_grad() && is_leaf(self)),
              "a leaf Variable that requires grad is being used in an in-place operation (", op, ").");
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  TensorImpl* impl = self.impl();
  if (impl->view_base && impl->autograd_meta && impl->autograd_meta->view_fn) {
    AutogradMeta& vm = *impl->autograd_meta;
    const Tensor base(impl->view_base);
    bool by_geometry = false;
    ViewFn replay = current_replay(self, vm, base, by_geometry);
    auto copy_slices = std::make_shared<CopySlices>(base, std::move(replay), fn, by_geometry);
    AutogradMeta& bm = meta(base);
    bm.grad_fn = copy_slices;
    bm.output_nr = 0;
    bm.grad_accumulator.reset();
    base.impl()->requires_grad = true;
    move_retain_hook(base, bm);
    fn->add_input_metadata(self);  // CopySlices calls fn with the gradient of the view's part
    vm.attr_version = self.version() - 1;  // the view's grad_fn is regenerated on its next use
    return;
  }
  AutogradMeta& m = meta(self);
  m.grad_fn = fn;
  m.grad_accumulator.reset();
  m.output_nr = fn->add_input_metadata(self);
  self.impl()->requires_grad = true;
  move_retain_hook(self, m);
}

void set_inplace_view_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  // transpose_ and friends change only how self sees its memory: its history continues
  // from fn, and a view's replay was extended by the in-place-or-view kernel
  AutogradMeta& m = meta(self);
  m.grad_fn = fn;
  m.grad_accumulator.reset();
  m.output_nr = fn->add_input_metadata(self);
  m.attr_version = self.version();
  self.impl()->requires_grad = true;
  // the retain_grad hook stays where it was, torch's (set_history, not rebase_history): after
  // y.t_() y.grad is the gradient of y before the transpose, of its old shape
}

}  // namespace tcore::autograd
