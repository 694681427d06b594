// Per-tensor autograd metadata, saved variables and graph recording.
#include <atomic>

#include <tcore/ops/add_ops.h>  // the signature only: a default edit does not recompile this
#include <tcore/ops/copy_ops.h>

#include "autograd/Views.h"
#include "tcore/autograd/autograd.h"

namespace tcore::autograd {

namespace {
std::atomic<uint64_t> next_sequence_nr{0};
std::atomic<uint64_t> hook_ids{0};

// PyTorch's gradient layout contract: a leaf's .grad has the leaf's strides when the leaf is
// non-overlapping and dense (size-1 dims aside), else is contiguous; a gradient in another layout
// (the transposed view .t()'s backward gives) is copied into one.
bool has_strides_of(const Tensor& g, const Tensor& leaf) {
  for (size_t d = 0; d < g.sizes().size(); ++d) {
    if (g.sizes()[d] != 1 ? g.strides()[d] != leaf.strides()[d] : g.strides()[d] == 0) return false;
  }
  return true;
}
Tensor in_leaf_layout(const Tensor& g, const Tensor& leaf) {
  if (non_overlapping_and_dense(leaf.sizes(), leaf.strides())) {
    if (has_strides_of(g, leaf)) return g;
    return ops::copy_::call(empty_strided_on(leaf.sizes(), leaf.strides(), g.dtype(), g.device()), g, false);
  }
  if (g.is_contiguous()) return g;
  return ops::copy_::call(empty_on(leaf.sizes(), g.dtype(), g.device()), g, false);
}

// The node that accumulates into a leaf's .grad; the leaf holds it weakly. The leaf's own
// hooks (register_hook, held by the leaf) run first, as a pre-hook of its slot.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor leaf) : leaf_(std::move(leaf)) {
    add_input_metadata(leaf_);
    sequence_nr = UINT64_MAX;  // leaves run last
    pre_hooks[0].add([this](const Tensor& g) {
      const auto hooks = meta(leaf_).leaf_hooks.items;  // a copy: a hook may add or remove hooks
      Tensor cur = g;
      for (const auto& [id, hook] : hooks) {
        Tensor r = hook(cur);
        if (r.defined()) cur = r;
      }
      return cur;
    });
  }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    Tensor g = grads.at(0);
    // (a leaf set to requires_grad=False since the graph was recorded takes nothing, as torch's)
    if (!g.defined() || !leaf_.impl()->requires_grad) return {};
    AutogradMeta& m = meta(leaf_);
    // torch's: accumulated in place outside create_graph (the same .grad object, step after step:
    // a .grad read earlier sees the sum), a new tensor inside it (the sum's history recorded)
    if (!m.grad.defined()) m.grad = GradMode::is_enabled() ? g : in_leaf_layout(detach(g), leaf_);
    else if (!GradMode::is_enabled()) ops::add__Tensor::call(m.grad, g, 1);
    else m.grad = ops::add_Tensor::call(m.grad, g, 1);
    const auto hooks = m.post_accumulate_hooks.items;  // (a copy: a hook may remove itself)
    for (const auto& [id, hook] : hooks) hook(leaf_);
    return {};
  }
  std::string name() const override { return "AccumulateGrad"; }

 private:
  Tensor leaf_;
};
}  // namespace

Node::Node() : sequence_nr(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

std::optional<jit::IValue> Node::saved_value(const std::string&) const { return std::nullopt; }

uint64_t next_hook_id() { return hook_ids.fetch_add(1, std::memory_order_relaxed) + 1; }

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_meta.push_back(InputMeta{t.sizes().vec(), t.dtype(), t.device()});
  pre_hooks.emplace_back();
  return static_cast<uint32_t>(input_meta.size() - 1);
}

AutogradMeta& meta(const Tensor& t) {
  TCORE_CHECK(t.defined(), "autograd: undefined tensor");
  auto& m = t.impl()->autograd_meta;
  if (!m) m = std::make_shared<AutogradMeta>();
  return *m;
}

std::shared_ptr<Node> grad_fn(const Tensor& t) {
  const auto& m = t.impl()->autograd_meta;
  if (!m) return nullptr;
  // a view written through its base (or another view) since its history was recorded
  if (t.impl()->view_base && m->view_fn && m->attr_version != t.version()) return view_grad_fn(t, *m);
  return m->grad_fn;
}

bool is_leaf(const Tensor& t) { return grad_fn(t) == nullptr; }

void set_requires_grad(const Tensor& t, bool requires_grad) {
  if (!is_leaf(t) && requires_grad) return;  // (a computed tensor requires grad already: a no-op, as torch's)
  TCORE_CHECK(is_leaf(t), "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                          "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  TCORE_CHECK(!requires_grad || is_floating(t.dtype()),
              "only Tensors of floating point dtype can require gradients (got ", t.dtype(), ")");
  t.impl()->requires_grad = requires_grad;
  if (requires_grad) meta(t);
}

Tensor grad(const Tensor& t) {
  const auto& m = t.impl()->autograd_meta;
  return m ? m->grad : Tensor();
}

void set_grad(const Tensor& t, const Tensor& g) {
  if (g.defined()) {
    TCORE_CHECK_VALUE(g.sizes().size() == t.sizes().size() &&
                          std::equal(g.sizes().begin(), g.sizes().end(), t.sizes().begin()),
                      "assigned grad has shape ", shape_str(g.sizes()), " but the tensor has shape ",
                      shape_str(t.sizes()));
  }
  meta(t).grad = g;
}

Tensor detach(const Tensor& t) {
  return make_view(t, t.sizes().vec(), t.strides().vec(), t.storage_offset());
}

Edge gradient_edge(const Tensor& t) {
  if (auto fn = grad_fn(t)) return Edge{fn, meta(t).output_nr};
  // only a leaf that asked for it accumulates (not a view that requires grad through its base)
  if (!t.impl()->requires_grad) return Edge{};
  AutogradMeta& m = meta(t);
  std::shared_ptr<Node> acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m.grad_accumulator = acc;
  }
  return Edge{acc, 0};
}

void retain_grad(const Tensor& t) {
  TCORE_CHECK(t.requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  std::shared_ptr<Node> fn = grad_fn(t);
  if (!fn) return;  // a leaf keeps its .grad anyway
  AutogradMeta& m = meta(t);
  if (m.retains_grad) return;
  m.retains_grad = true;
  m.retain_hook_node = fn;
  std::weak_ptr<TensorImpl> weak = t.impl_ptr();
  m.retain_hook = fn->pre_hooks[m.output_nr].add([weak](const Tensor& g) {
    if (auto impl = weak.lock()) {
      Tensor self(impl);
      AutogradMeta& mm = meta(self);
      mm.grad = mm.grad.defined() ? ops::add_Tensor::call(mm.grad, g, 1) : (GradMode::is_enabled() ? g : detach(g));
    }
    return Tensor();
  });
}

std::function<void()> register_hook(const Tensor& t, TensorHook hook) {
  TCORE_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  if (std::shared_ptr<Node> fn = grad_fn(t)) {
    // a non-leaf: on its grad_fn's slot (it sees the gradient of the value it had when registered)
    const uint32_t slot = meta(t).output_nr;
    const uint64_t id = fn->pre_hooks[slot].add(std::move(hook));
    return [weak = std::weak_ptr<Node>(fn), slot, id] {
      if (auto node = weak.lock()) node->pre_hooks[slot].remove(id);
    };
  }
  // a leaf holds its hooks itself; they run before accumulation into .grad
  const uint64_t id = meta(t).leaf_hooks.add(std::move(hook));
  return [weak = std::weak_ptr<TensorImpl>(t.impl_ptr()), id] {
    if (auto impl = weak.lock()) {
      if (impl->autograd_meta) impl->autograd_meta->leaf_hooks.remove(id);
    }
  };
}

std::function<void()> register_post_accumulate_grad_hook(const Tensor& t, std::function<void(const Tensor&)> hook) {
  TCORE_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  TCORE_CHECK(is_leaf(t), "post accumulate grad hooks cannot be registered on non-leaf tensors");
  const uint64_t id = meta(t).post_accumulate_hooks.add(std::move(hook));
  return [weak = std::weak_ptr<TensorImpl>(t.impl_ptr()), id] {
    if (auto impl = weak.lock()) {
      if (impl->autograd_meta) impl->autograd_meta->post_accumulate_hooks.remove(id);
    }
  };
}

std::function<void()> register_node_prehook(const std::shared_ptr<Node>& fn, NodePreHook hook) {
  const uint64_t id = fn->node_pre_hooks.add(std::move(hook));
  return [weak = std::weak_ptr<Node>(fn), id] {
    if (auto node = weak.lock()) node->node_pre_hooks.remove(id);
  };
}

std::function<void()> register_node_hook(const std::shared_ptr<Node>& fn, NodePostHook hook) {
  const uint64_t id = fn->post_hooks.add(std::move(hook));
  return [weak = std::weak_ptr<Node>(fn), id] {
    if (auto node = weak.lock()) node->post_hooks.remove(id);
  };
}

std::vector<Edge> collect_next_edges(std::initializer_list<const Tensor*> inputs) {
  std::vector<Edge> edges;
  for (const Tensor* t : inputs) edges.push_back(t && t->defined() ? gradient_edge(*t) : Edge{});
  return edges;
}

EdgeRange append_next_edges(std::vector<Edge>& edges, const Tensor& input) {
  edges.push_back(input.defined() ? gradient_edge(input) : Edge{});
  return {edges.size() - 1, 1};
}

EdgeRange append_next_edges(std::vector<Edge>& edges, ArrayRef<Tensor> inputs) {
  const EdgeRange r{edges.size(), inputs.size()};
  for (const Tensor& t : inputs) edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
  return r;
}

void assign_range(std::vector<Tensor>& out, EdgeRange r, std::vector<Tensor>&& grads) {
  TCORE_CHECK(grads.size() == r.size, "a Tensor[] formula returned ", grads.size(), " gradients for ", r.size,
              " inputs");
  for (size_t i = 0; i < r.size; ++i) out[r.begin + i] = std::move(grads[i]);
}

std::vector<SavedVariable> save_list(ArrayRef<Tensor> inputs, bool is_output) {
  std::vector<SavedVariable> out;
  out.reserve(inputs.size());
  for (const Tensor& t : inputs) out.emplace_back(t, is_output);
  return out;
}

std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& saved, const char* name) {
  std::vector<Tensor> out;
  out.reserve(saved.size());
  for (const SavedVariable& v : saved) out.push_back(v.unpack(name));
  return out;
}

std::vector<std::vector<int64_t>> sizes_of(ArrayRef<Tensor> inputs) {
  std::vector<std::vector<int64_t>> out;
  out.reserve(inputs.size());
  for (const Tensor& t : inputs) out.push_back(t.sizes().vec());
  return out;
}

void set_history(const Tensor& output, const std::shared_ptr<Node>& fn) {
  if (!is_floating(output.dtype())) return;  // integer outputs never require grad
  AutogradMeta& m = meta(output);
  m.grad_fn = fn;
  m.output_nr = fn->add_input_metadata(output);
  output.impl()->requires_grad = true;
}

void set_list_history(const std::vector<Tensor>& outputs, const std::shared_ptr<Node>& fn) {
  for (const Tensor& t : outputs) {
    if (is_floating(t.dtype())) {
      set_history(t, fn);
    } else {
      fn->add_input_metadata(t);  // its slot, unused: grads[i] stays output i's
    }
  }
}

void check_no_grad_for_out(bool any_requires_grad, const char* op) {
  TCORE_CHECK(!any_requires_grad, op, "(): functions with out=... arguments don't support automatic "
                                      "differentiation, but one of the arguments requires grad.");
}

// ----------------------------------------------------------------- SavedVariable

namespace {
thread_local std::vector<PackHook> pack_hooks;
}  // namespace

void push_pack_hook(PackHook hook) { pack_hooks.push_back(std::move(hook)); }
void pop_pack_hook() {
  TCORE_CHECK(!pack_hooks.empty(), "pop_pack_hook: no saved-tensor hooks are pushed");
  pack_hooks.pop_back();
}

SavedVariable::SavedVariable(const Tensor& t, bool is_output) : is_output_(is_output), was_defined_(t.defined()) {
  if (!t.defined()) return;
  if (!pack_hooks.empty()) {  // the innermost hook, run without itself (its own saves are kept as they are)
    PackHook hook = std::move(pack_hooks.back());
    pack_hooks.pop_back();
    struct Restore {
      PackHook& hook;
      ~Restore() { pack_hooks.push_back(std::move(hook)); }
    } restore{hook};
    requires_grad_ = t.requires_grad();
    if (auto fn = grad_fn(t)) {
      output_fn_ = fn;
      output_nr_ = meta(t).output_nr;
    }
    // what the tensor itself would have carried: an input's place in the graph (its grad_fn, or
    // a leaf's accumulator, held here as the tensor would hold it), and the tangent
    if (!is_output && t.requires_grad()) input_edge_ = gradient_edge(t);
    if (t.impl()->has_fw_grad) {
      fw_grad_ = fw_grad(t);
      fw_level_ = current_dual_level();
    }
    const uint32_t version = t.version();
    unpack_hook_ = hook(is_output ? detach(t) : t);
    TCORE_CHECK(t.version() == version, "A saved tensor pack hook is modifying its input in place. Tensors provided "
                "as input to pack hook cannot be modified by in-place operations as this can lead to unexpected "
                "side-effects. Please open an issue if you need to perform in-place operations on the input to a "
                "pack hook.");
    return;
  }
  version_ = t.version();
  requires_grad_ = t.requires_grad();
  if (auto fn = grad_fn(t)) {
    output_fn_ = fn;
    output_nr_ = meta(t).output_nr;
  }
  data_ = is_output ? detach(t) : t;
  if (is_output && t.impl()->has_fw_grad) {  // detach dropped it: kept for forward over reverse
    fw_grad_ = fw_grad(t);
    fw_level_ = current_dual_level();
  }
}

Tensor SavedVariable::unpack(const char* name, const Node* owner) const {
  TCORE_CHECK(!released_, "Trying to backward through the graph a second time (or directly access saved tensors "
                          "after they have already been freed). Specify retain_graph=True if you need to backward "
                          "through the graph a second time.");
  if (unpack_hook_) {
    Tensor data = unpack_hook_();
    TCORE_CHECK(data.defined(), "the unpack hook of saved_tensors_hooks returned None for a saved tensor ('", name, "')");
    if (is_output_) return restore_output(detach(data), owner);
    Tensor out = detach(data);  // the hook's tensor, in the saved input's place in the graph
    if (input_edge_.valid()) {
      AutogradMeta& m = meta(out);
      m.grad_fn = input_edge_.fn;
      m.output_nr = input_edge_.input_nr;
      out.impl()->requires_grad = true;
    }
    if (fw_grad_.defined() && fw_level_ == current_dual_level()) set_fw_grad(out, fw_grad_);
    return out;
  }
  if (!data_.defined()) return Tensor();
  if (data_.version() != version_) {
    std::string producer;
    if (auto fn = output_fn_.lock()) producer = detail::str_cat(", which is output ", output_nr_, " of ", fn->name(), ",");
    throw Error(detail::str_cat(
        "one of the variables needed for gradient computation has been modified by an inplace operation: [",
        to_string(data_.dtype()), " ", shape_str(data_.sizes()), "]", producer, " is at version ", data_.version(),
        "; expected version ", version_, " instead (saved tensor '", name, "'",
        owner ? detail::str_cat(" of ", owner->name()) : std::string(), ")."));
  }
  if (!is_output_) return data_;
  return restore_output(detach(data_), owner);
}

Tensor SavedVariable::restore_output(Tensor out, const Node* owner) const {
  // An output's grad_fn is held weakly. After an in-place operation on a view it is the
  // view's regenerated grad_fn, which may be gone: then the node that computed the value
  // (the one unpacking it) stands in, as in PyTorch.
  std::shared_ptr<Node> fn = output_fn_.lock();
  if (!fn && owner != nullptr) fn = const_cast<Node*>(owner)->shared_from_this();
  if (fn) {
    AutogradMeta& m = meta(out);
    m.grad_fn = fn;
    m.output_nr = output_nr_;
    out.impl()->requires_grad = requires_grad_;
  }
  if (fw_grad_.defined() && fw_level_ == current_dual_level()) set_fw_grad(out, fw_grad_);
  return out;
}

void SavedVariable::reset() {
  released_ = true;  // first: releasing the tensors may run Python code (a kept object's weak reference
                     // callbacks) that unpacks this again
  const Tensor data = std::move(data_), fw_grad = std::move(fw_grad_);
  const UnpackHook hook = std::move(unpack_hook_);
  const Edge edge = std::move(input_edge_);
}

}  // namespace tcore::autograd
