// Custom autograd functions (tcore.autograd.Function): the node that calls a Python backward,
// and the recording of a call's outputs as torch's custom_function.cpp does it. The Python side
// (tcore/autograd/function.py) runs forward, checks what backward returns and keeps the context;
// here: the graph edges, the outputs' history (inputs written in place are rebased, inputs returned
// as they are become views of themselves, views are marked so that writing them in place is
// refused), and the saved tensors, kept as SavedVariables (version-checked, outputs held without a
// cycle).
#include <nanobind/stl/shared_ptr.h>

#include <tcore/ops/alias.h>

#include "python/bind.h"
#include "tcore/autograd/autograd.h"

namespace tcore::python {

namespace ag = tcore::autograd;

namespace {

bool interpreter_alive() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

// What ctx.save_for_backward kept: shared by the node (which releases it after a backward without
// retain_graph) and the Python context (which unpacks it).
struct FunctionSaved {
  std::vector<ag::SavedVariable> vars;
  std::weak_ptr<ag::Node> owner;

  nb::tuple unpack() const {
    std::shared_ptr<ag::Node> node = owner.lock();
    nb::list out;
    for (const ag::SavedVariable& v : vars) {
      Tensor t = v.unpack("saved_tensors", node.get());
      out.append(t.defined() ? nb::cast(t) : nb::none());
    }
    return nb::tuple(out);
  }
  void release() {
    for (ag::SavedVariable& v : vars) v.reset();
  }
};

class PyFunctionNode final : public ag::Node {
 public:
  PyFunctionNode(std::string name, nb::object backward, nb::object ctx, std::shared_ptr<FunctionSaved> saved)
      : name_(std::move(name)), backward_(std::move(backward)), ctx_(std::move(ctx)), saved_(std::move(saved)) {}
  ~PyFunctionNode() override {
    if (!interpreter_alive()) {  // (exit: the objects are left to the interpreter's teardown)
      backward_.release();
      ctx_.release();
      return;
    }
    nb::gil_scoped_acquire gil;
    backward_.reset();
    ctx_.reset();
  }

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    nb::gil_scoped_acquire gil;
    nb::list in;
    for (const Tensor& g : grads) in.append(g.defined() ? nb::cast(g) : nb::none());
    nb::object r = backward_(nb::tuple(in));
    std::vector<Tensor> out;
    for (nb::handle x : nb::borrow<nb::sequence>(r)) out.push_back(x.is_none() ? Tensor() : nb::cast<Tensor>(x));
    TCORE_CHECK(out.size() == next_edges.size(), name_, ": expected ", next_edges.size(), " gradients, got ",
                out.size());
    return out;
  }
  std::string name() const override { return name_; }
  void release_variables() override { saved_->release(); }
  const nb::object& ctx() const { return ctx_; }
  int traverse(visitproc visit, void* arg) const {
    Py_VISIT(ctx_.ptr());
    Py_VISIT(backward_.ptr());
    return 0;
  }

 private:
  std::string name_;
  nb::object backward_;  // (gradients of the outputs) -> gradients of the tensor inputs
  nb::object ctx_;
  std::shared_ptr<FunctionSaved> saved_;
};

// A Python object held from C++ that may be dropped without the GIL (the engine runs without it).
std::shared_ptr<nb::object> gil_safe(nb::object o) {
  return std::shared_ptr<nb::object>(new nb::object(std::move(o)), [](nb::object* p) {
    if (!interpreter_alive()) {
      p->release();
    } else {
      nb::gil_scoped_acquire gil;
      p->reset();
    }
    delete p;
  });
}

bool contains(const std::vector<Tensor>& ts, const Tensor& t) {
  return std::any_of(ts.begin(), ts.end(), [&](const Tensor& x) { return x.is_same(t); });
}

// Output `out` becomes slot i of node (the caller adds the slots in order).
void add_output(const Tensor& out, const std::shared_ptr<PyFunctionNode>& node, bool differentiable) {
  ag::AutogradMeta& m = ag::meta(out);
  const uint32_t slot = node->add_input_metadata(out);
  if (!differentiable) return;
  m.grad_fn = node;
  m.grad_accumulator.reset();
  m.output_nr = slot;
  m.attr_version = out.version();
  out.impl()->requires_grad = true;
}

// The call's graph: inputs (its tensor arguments, None for an undefined one), outputs (its tensor
// results, in order: the node's slots), what forward marked, what it saved. Returns the outputs as
// the caller sees them (an input returned as it is: a view of it), the saved tensors and the node.
nb::tuple record(const std::string& name, nb::object backward, nb::object ctx,
                 const std::vector<std::optional<Tensor>>& inputs, const std::vector<Tensor>& outputs,
                 const std::vector<Tensor>& dirty, const std::vector<Tensor>& non_differentiable,
                 const std::vector<std::optional<Tensor>>& to_save) {
  auto saved = std::make_shared<FunctionSaved>();
  auto node = std::make_shared<PyFunctionNode>(name, std::move(backward), std::move(ctx), saved);
  std::vector<Tensor> input_tensors;
  for (const auto& in : inputs) {
    node->next_edges.push_back(in && in->requires_grad() ? ag::gradient_edge(*in) : ag::Edge{});
    if (in) input_tensors.push_back(*in);
  }
  for (const Tensor& d : dirty) {
    TCORE_CHECK_VALUE(contains(outputs, d), "Some elements marked as dirty weren't returned by the function. The "
                      "dirty tensors must be returned as outputs.");
  }
  std::vector<Tensor> result;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor out = outputs[i];
    const bool differentiable = is_floating(out.dtype()) && !contains(non_differentiable, out);
    if (contains(dirty, out)) {
      ag::check_inplace(out, true, name.c_str());
      if (out.impl()->view_base && differentiable) {
        // (CopySlices routes the base's gradient through the node's first input and only output)
        TCORE_CHECK_AS(NotImplementedError, outputs.size() == 1 && !inputs.empty() && inputs[0] && inputs[0]->is_same(out),
                                    name, ": a view written in place by a custom Function (mark_dirty) must be its "
                                    "first argument and its only output");
        ag::rebase_history(out, node);
      } else if (differentiable) {
        ag::rebase_history(out, node);
      } else {
        node->add_input_metadata(out);
      }
    } else {
      if (contains(input_tensors, out)) {  // returned as it is: a view of itself, torch's view_as
        NoGradGuard no_grad;
        out = tcore::alias(out);
      }
      add_output(out, node, differentiable);
      if (out.impl()->view_base && out.impl()->autograd_meta && out.impl()->autograd_meta->view_fn) {
        out.impl()->autograd_meta->creation_meta = ag::CreationMeta::InCustomFunction;
      }
    }
    result.push_back(out);
  }
  for (const auto& t : to_save) {
    saved->vars.emplace_back(t ? ag::SavedVariable(*t, ag::grad_fn(*t) == node) : ag::SavedVariable());
  }
  saved->owner = node;
  nb::list outs;
  for (const Tensor& t : result) outs.append(t);
  return nb::make_tuple(outs, saved, std::static_pointer_cast<ag::Node>(node));
}

}  // namespace

// A custom Function's context, for grad_fn's attributes (None for other nodes).
nb::object function_ctx(const ag::Node& n) {
  if (const auto* f = dynamic_cast<const PyFunctionNode*>(&n)) return f->ctx();
  return nb::none();
}

// The Python objects of a tensor's custom Function node, shown to the cyclic collector by the
// tensor's object when it alone holds the tensor and the tensor alone holds the node (torch's
// THPVariable_subclass_traverse): a context keeping its own output as an attribute (ctx.out = y)
// is then garbage once the output's last Python reference goes, instead of living on through the
// node.
int traverse_grad_fn(const Tensor& t, visitproc visit, void* arg) {
  if (!t.defined() || t.impl_ptr().use_count() != 1 || t.impl()->autograd_meta == nullptr) return 0;
  const std::shared_ptr<ag::Node>& fn = t.impl()->autograd_meta->grad_fn;
  if (fn.use_count() != 1) return 0;
  if (const auto* f = dynamic_cast<const PyFunctionNode*>(fn.get())) return f->traverse(visit, arg);
  return 0;
}

void bind_function(nb::module_& m) {
  nb::class_<FunctionSaved>(m, "_FunctionSaved").def("unpack", &FunctionSaved::unpack);
  m.def("_function_record", &record, nb::arg("name"), nb::arg("backward"), nb::arg("ctx"), nb::arg("inputs"),
        nb::arg("outputs"), nb::arg("dirty"), nb::arg("non_differentiable"), nb::arg("to_save"));
  m.def("_set_fw_grad", [](const Tensor& t, const Tensor& tangent, bool in_place) {
    if (in_place) ag::set_fw_grad_inplace(t, tangent);
    else ag::set_fw_grad(t, tangent);
  }, nb::arg("tensor"), nb::arg("tangent"), nb::arg("in_place"));
  m.def("_push_saved_tensors_hooks", [](nb::callable pack, nb::callable unpack) {
    ag::push_pack_hook([pack = gil_safe(pack), unpack = gil_safe(unpack)](const Tensor& t) -> ag::UnpackHook {
      nb::gil_scoped_acquire gil;
      std::shared_ptr<nb::object> packed = gil_safe((*pack)(t));
      return [packed, unpack]() {
        nb::gil_scoped_acquire gil;
        nb::object r = (*unpack)(*packed);
        TCORE_CHECK_TYPE(nb::isinstance<Tensor>(r), "Output of saved tensor unpack_hook expected to be a Tensor but got "
                         "result of type ", nb::inst_name(r).c_str());
        return nb::cast<Tensor>(r);
      };
    });
  }, nb::arg("pack_hook"), nb::arg("unpack_hook"));
  m.def("_pop_saved_tensors_hooks", &ag::pop_pack_hook);
  m.def("_is_checkpoint_valid", &ag::current_task_accumulates);
  m.def("_is_fw_grad_enabled", &FwGradMode::is_enabled);
  m.def("_set_fw_grad_enabled", &FwGradMode::set_enabled, nb::arg("enabled"));
}

}  // namespace tcore::python
