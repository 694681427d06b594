// Python side of autograd: requires_grad, .grad, .grad_fn, backward, hooks,
// autograd.grad and grad mode. Hooks are Python callables run with the GIL.
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <utility>

#include "python/bind.h"
#include "tcore/autograd/autograd.h"

namespace tcore::python {

namespace ag = tcore::autograd;

nb::object ivalue_to_python(const jit::IValue& v);  // python/module.cpp
nb::object function_ctx(const ag::Node& n);          // python/function.cpp
void bind_function(nb::module_& m);                  // python/function.cpp

namespace {

// What register_hook returns: .remove() takes the hook away again (once).
struct RemovableHandle {
  std::function<void()> remover;
  void remove() {
    if (remover) std::exchange(remover, nullptr)();
  }
};

nb::tuple tensors_to_python(const std::vector<Tensor>& ts) {
  nb::list out;
  for (const Tensor& t : ts) out.append(t.defined() ? nb::cast(t) : nb::none());
  return nb::tuple(out);
}

// A hook's return value: None keeps the gradients, else a sequence of tensors or None.
std::vector<Tensor> tensors_from_python(nb::handle r) {
  std::vector<Tensor> out;
  if (r.is_none()) return out;
  for (nb::handle x : nb::borrow<nb::sequence>(r)) out.push_back(x.is_none() ? Tensor() : nb::cast<Tensor>(x));
  return out;
}

}  // namespace

void bind_autograd(nb::module_& m, nb::class_<Tensor>& cls) {
  nb::class_<RemovableHandle>(m, "RemovableHandle")
      .def("remove", &RemovableHandle::remove)
      .def("__enter__", [](RemovableHandle& h) -> RemovableHandle& { return h; }, nb::rv_policy::reference)
      .def("__exit__", [](RemovableHandle& h, nb::args) { h.remove(); });

  nb::class_<ag::Node>(m, "Node")
      .def("name", &ag::Node::name)
      .def_prop_ro("next_functions", [](const ag::Node& n) {
        nb::list out;
        for (const auto& e : n.next_edges) out.append(nb::make_tuple(e.fn ? nb::cast(e.fn) : nb::none(), e.input_nr));
        return nb::tuple(out);
      })
      .def("register_prehook", [](std::shared_ptr<ag::Node> n, nb::callable fn) {
        auto keep = std::make_shared<nb::object>(fn);
        return RemovableHandle{ag::register_node_prehook(n, [keep](const std::vector<Tensor>& grads) {
          nb::gil_scoped_acquire gil;
          return tensors_from_python((*keep)(tensors_to_python(grads)));
        })};
      }, nb::arg("hook"))
      .def("register_hook", [](std::shared_ptr<ag::Node> n, nb::callable fn) {
        auto keep = std::make_shared<nb::object>(fn);
        return RemovableHandle{ag::register_node_hook(
            n, [keep](const std::vector<Tensor>& grad_inputs, const std::vector<Tensor>& grad_outputs) {
              nb::gil_scoped_acquire gil;
              return tensors_from_python((*keep)(tensors_to_python(grad_inputs), tensors_to_python(grad_outputs)));
            })};
      }, nb::arg("hook"))
      .def("_saved_names", &ag::Node::saved_names)
      .def("__getattr__", [](const ag::Node& n, const std::string& attr) -> nb::object {
        if (attr.rfind("_saved_", 0) == 0) {
          if (std::optional<jit::IValue> v = n.saved_value(attr.substr(7))) return ivalue_to_python(*v);
        }
        nb::object ctx = function_ctx(n);  // a custom Function's node: its context's attributes
        if (!ctx.is_none() && attr.rfind("__", 0) != 0 && nb::hasattr(ctx, attr.c_str())) {
          return ctx.attr(attr.c_str());
        }
        throw nb::attribute_error(("'" + n.name() + "' object has no attribute '" + attr + "'").c_str());
      })
      .def("__repr__", [](const ag::Node& n) { return "<" + n.name() + ">"; });

  cls.def_prop_rw(
         "requires_grad", [](const Tensor& t) { return t.requires_grad(); },
         [](const Tensor& t, bool v) { ag::set_requires_grad(t, v); })
      .def("requires_grad_", [](const Tensor& t, bool v) {
        ag::set_requires_grad(t, v);
        return t;
      }, nb::arg("requires_grad") = true)
      .def_prop_rw(
          "grad", [](const Tensor& t) -> std::optional<Tensor> {
            Tensor g = ag::grad(t);
            return g.defined() ? std::optional<Tensor>(g) : std::nullopt;
          },
          [](const Tensor& t, std::optional<Tensor> g) { ag::set_grad(t, g ? *g : Tensor()); }, nb::arg("value").none())
      .def_prop_ro("grad_fn", [](const Tensor& t) { return ag::grad_fn(t); })
      .def_prop_ro("is_leaf", [](const Tensor& t) { return ag::is_leaf(t); })
      .def("detach", [](const Tensor& t) { return ag::detach(t); })
      .def("detach_", [](const Tensor& t) {  // t itself out of the graph: no history, no tangent, as torch's
        const auto& m = t.impl()->autograd_meta;
        TCORE_CHECK(!(t.impl()->view_base && m && m->view_fn),
                    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
        t.impl()->requires_grad = false;
        if (m) {
          m->grad_fn.reset();
          m->output_nr = 0;
          m->fw_grad = Tensor();
          m->fw_level = -1;
        }
        t.impl()->has_fw_grad = false;
        return t;
      })
      .def("retain_grad", [](const Tensor& t) { ag::retain_grad(t); })
      .def("register_hook", [](const Tensor& t, nb::callable fn) {
        auto keep = std::make_shared<nb::object>(fn);
        return RemovableHandle{ag::register_hook(t, [keep](const Tensor& g) -> Tensor {
          nb::gil_scoped_acquire gil;
          nb::object r = (*keep)(g);
          return r.is_none() ? Tensor() : nb::cast<Tensor>(r);
        })};
      }, nb::arg("hook"))
      .def("register_post_accumulate_grad_hook", [](const Tensor& t, nb::callable fn) {
        auto keep = std::make_shared<nb::object>(fn);
        return RemovableHandle{ag::register_post_accumulate_grad_hook(t, [keep](const Tensor& leaf) {
          nb::gil_scoped_acquire gil;
          nb::object r = (*keep)(leaf);
          TCORE_CHECK(r.is_none(), "post accumulate grad hooks should return None.");
        })};
      }, nb::arg("hook"))
      .def_prop_ro("_base", [](const Tensor& t) -> std::optional<Tensor> {
        Tensor b = ag::view_base(t);
        return b.defined() ? std::optional<Tensor>(b) : std::nullopt;
      })
      .def("_is_view", [](const Tensor& t) { return t.is_view(); })
      .def_prop_ro("retains_grad", [](const Tensor& t) {
        const auto& m = t.impl()->autograd_meta;
        return m != nullptr && m->retains_grad;
      })
      .def("backward", [](const Tensor& t, std::optional<Tensor> gradient, std::optional<bool> retain_graph,
                          bool create_graph) {
        nb::gil_scoped_release nogil;
        ag::backward({t}, {gradient ? *gradient : Tensor()}, retain_graph, create_graph);
      }, nb::arg("gradient").none() = nb::none(), nb::arg("retain_graph").none() = nb::none(),
         nb::arg("create_graph") = false);

  m.def("_autograd_grad", [](std::vector<Tensor> outputs, std::vector<Tensor> inputs,
                             std::vector<std::optional<Tensor>> grad_outputs, std::optional<bool> retain_graph,
                             bool create_graph, bool allow_unused) {
    std::vector<Tensor> gs;
    for (auto& g : grad_outputs) gs.push_back(g ? *g : Tensor());
    std::vector<Tensor> result;
    {
      nb::gil_scoped_release nogil;
      result = ag::grad(outputs, inputs, gs, retain_graph, create_graph, allow_unused);
    }
    nb::list out;
    for (auto& r : result) out.append(r.defined() ? nb::cast(r) : nb::none());
    return nb::tuple(out);
  });
  m.def("_autograd_backward", [](std::vector<Tensor> outputs, std::vector<std::optional<Tensor>> grad_outputs,
                                 std::optional<bool> retain_graph, bool create_graph) {
    std::vector<Tensor> gs;
    for (auto& g : grad_outputs) gs.push_back(g ? *g : Tensor());
    nb::gil_scoped_release nogil;
    ag::backward(outputs, gs, retain_graph, create_graph);
  });
  m.def("_autograd_backward_into", [](std::vector<Tensor> outputs, std::vector<std::optional<Tensor>> grad_outputs,
                                      std::optional<bool> retain_graph, bool create_graph, std::vector<Tensor> inputs) {
    std::vector<Tensor> gs;
    for (auto& g : grad_outputs) gs.push_back(g ? *g : Tensor());
    nb::gil_scoped_release nogil;
    ag::backward_into(outputs, gs, retain_graph, create_graph, inputs);
  });
  m.def("_enter_dual_level", &ag::enter_dual_level);
  m.def("_exit_dual_level", &ag::exit_dual_level, nb::arg("level"));
  m.def("_current_dual_level", &ag::current_dual_level);
  m.def("_make_dual", &ag::make_dual, nb::arg("tensor"), nb::arg("tangent"), nb::arg("level"));
  m.def("_unpack_dual", [](const Tensor& t, int64_t level) {
    auto [primal, tangent] = ag::unpack_dual(t, level);
    return nb::make_tuple(primal, tangent.defined() ? nb::cast(tangent) : nb::none());
  }, nb::arg("tensor"), nb::arg("level"));
  bind_function(m);
  m.def("_set_anomaly_enabled", &ag::set_anomaly_mode, nb::arg("enabled"), nb::arg("check_nan") = true);
  m.def("_is_anomaly_enabled", &ag::anomaly_enabled);
  m.def("_is_anomaly_check_nan_enabled", &ag::anomaly_check_nan);
  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("_set_grad_enabled", &GradMode::set_enabled);
}

}  // namespace tcore::python
