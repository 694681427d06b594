// tcore's C++ errors as Python exceptions, with PyTorch's types.
//
// PyTorch raises RuntimeError for bad shapes, dtypes, devices and values, and IndexError,
// TypeError or ValueError where it uses those. tcore's kernels throw ValueError (shapes,
// sizes, dims, values) and TypeError (dtypes) from csrc/include/tcore/core/Macros.h, so
// those become classes that are both: `except RuntimeError` catches them as it does in
// PyTorch, and `except ValueError` / `except TypeError` still do.
//
//   tcore::Error       -> RuntimeError
//   tcore::ValueError  -> tcore.errors.ArgumentValueError(RuntimeError, ValueError)
//   tcore::TypeError   -> tcore.errors.ArgumentTypeError(RuntimeError, TypeError)
//   tcore::IndexError  -> IndexError
//   tcore::NotImplementedError -> NotImplementedError
// and tcore::warn -> warnings.warn(UserWarning), raised as an error where the filters say so.
#include "python/bind.h"

namespace tcore::python {
namespace {

PyObject* value_error = nullptr;
PyObject* type_error = nullptr;

PyObject* new_error(const char* name, PyObject* second_base, const char* doc) {
  PyObject* bases = PyTuple_Pack(2, PyExc_RuntimeError, second_base);
  if (!bases) throw nb::python_error();
  PyObject* type = PyErr_NewExceptionWithDoc(name, doc, bases, nullptr);
  Py_DECREF(bases);
  if (!type) throw nb::python_error();
  return type;
}

}  // namespace

void bind_errors(nb::module_& m) {
  value_error = new_error("tcore.errors.ArgumentValueError", PyExc_ValueError,
                          "A bad shape, size, dim or value: a RuntimeError (as PyTorch raises) and a ValueError.");
  type_error = new_error("tcore.errors.ArgumentTypeError", PyExc_TypeError,
                         "An unsupported dtype or kind of tensor: a RuntimeError (as PyTorch raises) and a TypeError.");
  m.attr("_ArgumentValueError") = nb::handle(value_error);
  m.attr("_ArgumentTypeError") = nb::handle(type_error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const tcore::TypeError& e) {
      PyErr_SetString(type_error, e.what());
    } catch (const tcore::ValueError& e) {
      PyErr_SetString(value_error, e.what());
    } catch (const tcore::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    }
  });
  tcore::set_warning_handler([](const std::string& message) {
    nb::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw nb::python_error();
  });
  // Tensors still referenced from Python objects alive at exit (hooks at module level,
  // globals of other modules) are not leaks of tcore: no warning at interpreter exit.
  nb::set_leak_warnings(false);
}

}  // namespace tcore::python
