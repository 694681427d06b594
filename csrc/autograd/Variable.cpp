// Per-tensor autograd metadata, saved variables and graph recording.
#include <atomic>

#include <tcore/ops/add_ops.h>  // the signature only: a default edit does not recompile this

#include "tcore/autograd/autograd.h"

namespace tcore::autograd {

namespace {
std::atomic<uint64_t> next_sequence_nr{0};

// The node that accumulates into a leaf's .grad; the leaf holds it weakly.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor leaf) : leaf_(std::move(leaf)) {
    add_input_metadata(leaf_);
    sequence_nr = UINT64_MAX;  // leaves run last
  }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    Tensor g = grads.at(0);
    if (!g.defined()) return {};
    AutogradMeta& m = meta(leaf_);
    // a fresh tensor each time, so a .grad read earlier stays as it was
    m.grad = !m.grad.defined() ? (GradMode::is_enabled() ? g : detach(g)) : ops::add_Tensor::call(m.grad, g, 1);
    return {};
  }
  std::string name() const override { return "AccumulateGrad"; }

 private:
  Tensor leaf_;
};
}  // namespace

Node::Node() : sequence_nr(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

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
  return m ? m->grad_fn : nullptr;
}

bool is_leaf(const Tensor& t) { return grad_fn(t) == nullptr; }

void set_requires_grad(const Tensor& t, bool requires_grad) {
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
  if (!t.requires_grad()) return Edge{};
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
  if (is_leaf(t)) return;
  AutogradMeta& m = meta(t);
  if (m.retains_grad) return;
  m.retains_grad = true;
  std::weak_ptr<TensorImpl> weak = t.impl_ptr();
  m.grad_fn->pre_hooks[m.output_nr].push_back([weak](const Tensor& g) {
    if (auto impl = weak.lock()) {
      Tensor self(impl);
      AutogradMeta& mm = meta(self);
      mm.grad = mm.grad.defined() ? ops::add_Tensor::call(mm.grad, g, 1) : (GradMode::is_enabled() ? g : detach(g));
    }
    return Tensor();
  });
}

void register_hook(const Tensor& t, TensorHook hook) {
  TCORE_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  Edge e = gradient_edge(t);
  e.fn->pre_hooks[e.input_nr].push_back(std::move(hook));
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

std::vector<SavedVariable> save_list(ArrayRef<Tensor> inputs) {
  std::vector<SavedVariable> out;
  out.reserve(inputs.size());
  for (const Tensor& t : inputs) out.emplace_back(t, false);
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

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  AutogradMeta& m = meta(self);
  m.grad_fn = fn;
  m.grad_accumulator.reset();
  m.output_nr = fn->add_input_metadata(self);
  self.impl()->requires_grad = true;
}

void check_inplace(const Tensor& self, bool any_requires_grad, const char* op) {
  if (!any_requires_grad) return;
  TCORE_CHECK(!(is_leaf(self) && self.requires_grad()),
              "a leaf Variable that requires grad is being used in an in-place operation (", op, ").");
}

void check_no_grad_for_out(bool any_requires_grad, const char* op) {
  TCORE_CHECK(!any_requires_grad, op, "(): functions with out=... arguments don't support automatic "
                                      "differentiation, but one of the arguments requires grad.");
}

// ----------------------------------------------------------------- SavedVariable

SavedVariable::SavedVariable(const Tensor& t, bool is_output) : is_output_(is_output), was_defined_(t.defined()) {
  if (!t.defined()) return;
  version_ = t.version();
  requires_grad_ = t.requires_grad();
  if (is_output) {
    data_ = detach(t);
    if (auto fn = grad_fn(t)) {
      output_fn_ = fn;
      output_nr_ = meta(t).output_nr;
    }
  } else {
    data_ = t;
  }
}

Tensor SavedVariable::unpack(const char* name) const {
  TCORE_CHECK(!released_, "Trying to backward through the graph a second time (or directly access saved tensors "
                          "after they have already been freed). Specify retain_graph=True if you need to backward "
                          "through the graph a second time.");
  if (!data_.defined()) return Tensor();
  TCORE_CHECK(data_.version() == version_, "one of the variables needed for gradient computation has been "
              "modified by an inplace operation: saved tensor '", name, "' of shape ", shape_str(data_.sizes()),
              " is at version ", data_.version(), "; expected version ", version_, " instead.");
  if (!is_output_) return data_;
  Tensor out = detach(data_);
  if (auto fn = output_fn_.lock()) {
    AutogradMeta& m = meta(out);
    m.grad_fn = fn;
    m.output_nr = output_nr_;
    out.impl()->requires_grad = requires_grad_;
  }
  return out;
}

void SavedVariable::reset() {
  data_ = Tensor();
  released_ = true;
}

}  // namespace tcore::autograd
