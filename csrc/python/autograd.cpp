// Python side of autograd: requires_grad, .grad, .grad_fn, backward, hooks,
// autograd.grad and grad mode. Hooks are Python callables run with the GIL.
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>

#include "python/bind.h"
#include "tcore/autograd/autograd.h"

namespace tcore::python {

namespace ag = tcore::autograd;

void bind_autograd(nb::module_& m, nb::class_<Tensor>& cls) {
  nb::class_<ag::Node>(m, "Node")
      .def("name", &ag::Node::name)
      .def_prop_ro("next_functions", [](const ag::Node& n) {
        nb::list out;
        for (const auto& e : n.next_edges) out.append(nb::make_tuple(e.fn ? nb::cast(e.fn) : nb::none(), e.input_nr));
        return nb::tuple(out);
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
      .def("retain_grad", [](const Tensor& t) { ag::retain_grad(t); })
      .def("register_hook", [](const Tensor& t, nb::callable fn) {
        auto keep = std::make_shared<nb::object>(fn);
        ag::register_hook(t, [keep](const Tensor& g) -> Tensor {
          nb::gil_scoped_acquire gil;
          nb::object r = (*keep)(g);
          return r.is_none() ? Tensor() : nb::cast<Tensor>(r);
        });
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
  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("_set_grad_enabled", &GradMode::set_enabled);
}

}  // namespace tcore::python
