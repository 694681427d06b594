// What tcore.nn needs from the Tensor class that the generated bindings do not give:
// construction from a tensor (so Python subclasses such as nn.Parameter can wrap one, as
// torch.nn.Parameter does) and replacing the tensor an object holds (`t.data = other`,
// which Module.to() uses so that optimizers keep the same Parameter objects).
#include "python/bind.h"

namespace tcore::python {

void bind_tensor_extras(nb::class_<Tensor>& cls) {
  cls.def(
      "__init__",
      [](nb::pointer_and_handle<Tensor> v, const Tensor& data) {
        new (v.p) Tensor(data);
        if (data.defined()) data.impl()->py_object.set(v.h.ptr(), v.p);  // the object operators give back from now on
      },
      nb::arg("data"),
      "A new Python object for the same tensor (shares storage and autograd history), the one operators return "
      "for it from then on (nn.Parameter's).");
  cls.def("_set_data", [](Tensor& self, const Tensor& other) { self = other; }, nb::arg("other"),
          "Makes this object stand for `other` (the tensor behind `t.data = other`).");
}

}  // namespace tcore::python
