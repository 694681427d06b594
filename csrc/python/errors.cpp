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
//   tcore::LinAlgError -> tcore.linalg.LinAlgError(RuntimeError), as torch.linalg.LinAlgError
// and tcore::warn -> warnings.warn(UserWarning), raised as an error where the filters say so,
// attributed to the caller's line: the first frame outside the tcore package, as torch's are.
#include "python/bind.h"

namespace tcore::python {
namespace {

PyObject* value_error = nullptr;
PyObject* type_error = nullptr;
PyObject* linalg_error = nullptr;

std::string* package_dir = nullptr;  // tcore/ (with the separator): its frames are tcore's own

// the folder of the tcore package (known once it is imported: a warning raised while importing
// it names the importing line); empty until then
const std::string* tcore_dir() {
  if (package_dir != nullptr) return package_dir;
  PyObject* module = PyDict_GetItemString(PyImport_GetModuleDict(), "tcore._C");  // borrowed
  if (module == nullptr) return nullptr;
  PyObject* file = PyObject_GetAttrString(module, "__file__");
  if (file == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  const char* text = PyUnicode_AsUTF8(file);
  if (text != nullptr) {
    const std::string path(text);
    package_dir = new std::string(path.substr(0, path.find_last_of("/\\") + 1));
  } else {
    PyErr_Clear();
  }
  Py_DECREF(file);
  return package_dir;
}

// warnings.warn's stacklevel that names the innermost frame whose file is not under tcore/
int caller_stacklevel() {
  const std::string* dir = tcore_dir();
  if (dir == nullptr) return 1;
  int level = 1;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    PyObject* name = PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_filename");
    Py_DECREF(code);
    const char* file = name != nullptr ? PyUnicode_AsUTF8(name) : nullptr;
    if (file == nullptr) PyErr_Clear();
    const bool ours = file != nullptr && std::string_view(file).rfind(*dir, 0) == 0;
    Py_XDECREF(name);
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
    if (!ours) break;
    ++level;
  }
  Py_XDECREF(frame);
  return level;
}

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
  linalg_error = PyErr_NewExceptionWithDoc("tcore.linalg.LinAlgError",
                                           "A matrix a linalg function cannot factor (singular, not positive-definite): "
                                           "a RuntimeError, as torch.linalg.LinAlgError.",
                                           PyExc_RuntimeError, nullptr);
  if (!linalg_error) throw nb::python_error();
  m.attr("_LinAlgError") = nb::handle(linalg_error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const tcore::TypeError& e) {
      PyErr_SetString(type_error, e.what());
    } catch (const tcore::ValueError& e) {
      PyErr_SetString(value_error, e.what());
    } catch (const tcore::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const tcore::LinAlgError& e) {
      PyErr_SetString(linalg_error, e.what());
    }
  });
  tcore::set_warning_handler([](const std::string& message) {
    nb::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), caller_stacklevel()) < 0) throw nb::python_error();
  });
  // Tensors still referenced from Python objects alive at exit (hooks at module level,
  // globals of other modules) are not leaks of tcore: no warning at interpreter exit.
  nb::set_leak_warnings(false);
}

}  // namespace tcore::python
