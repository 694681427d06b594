#pragma once
// What the generated binding shards need: nanobind, type casters for tcore's
// argument types, and the conversions from binding types to the C++ API.
#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tcore/core/OpDecl.h"

namespace nb = nanobind;

namespace tcore::python {

// An int list argument: accepts a sequence of ints or a single int (PyTorch's int[1]).
struct IntList {
  std::vector<int64_t> values;
  operator IntArrayRef() const { return values; }
};

inline IntArrayRef array_ref(const IntList& l) { return l.values; }
template <typename T>
ArrayRef<T> array_ref(const std::vector<T>& v) {
  return v;
}
// Elements the C++ API reads as ArrayRef<T> but the binding holds in another form (bool[] arrives
// as std::vector<bool>, a bitset; str[] as std::string): copied into an array that lives until the
// end of the call's full expression.
template <typename T>
struct OwnedArray {
  template <typename Source>
  explicit OwnedArray(const Source& v) : values(new T[v.size()]), size(v.size()) {
    std::copy(v.begin(), v.end(), values.get());
  }
  std::unique_ptr<T[]> values;  // not std::vector: std::vector<bool> has no bool* to give
  size_t size;
  operator ArrayRef<T>() const { return ArrayRef<T>(values.get(), size); }
};
inline OwnedArray<bool> array_ref(const std::vector<bool>& v) { return OwnedArray<bool>(v); }
inline OwnedArray<std::string_view> array_ref(const std::vector<std::string>& v) {
  return OwnedArray<std::string_view>(v);
}
// T[]? (float[]?, Tensor[]?, ScalarType[]?...): an optional view of the list.
template <typename T>
std::optional<ArrayRef<T>> optional_ref(const std::optional<std::vector<T>>& v) {
  return v ? std::optional<ArrayRef<T>>(ArrayRef<T>(*v)) : std::nullopt;
}
inline OptionalIntArrayRef optional_ref(const std::optional<IntList>& l) {
  return l ? OptionalIntArrayRef(IntArrayRef(l->values)) : std::nullopt;
}
inline std::optional<std::string_view> optional_ref(const std::optional<std::string>& s) {
  return s ? std::optional<std::string_view>(*s) : std::nullopt;
}

// PyTorch's object preservation (module.cpp): a Tensor object whose last Python reference went
// while C++ held its tensor lives on, kept by the tensor (TensorImpl's PyObjectSlot), holding no
// Tensor itself until Python has it again: handed back by an operator (adopt_kept_object, with the
// tensor) or reached otherwise (a weak reference) and used as an argument (revive_kept_object:
// false when its tensor is gone).
void adopt_kept_object(PyObject* object, Tensor* inside, const Tensor& tensor) noexcept;
bool revive_kept_object(PyObject* object, Tensor* inside) noexcept;

// Adds names to one of tcore._C's lists: _varargs_size_functions (the leading int list may be
// given as varargs: ones(2, 3)), _factory_functions (they take requires_grad=).
void add_names(nb::module_& m, const char* registry_name, std::initializer_list<const char*> names);
// Operators whose outputs have names (max.dim: values, indices): tcore wraps their tuples
// in a named tuple type (tcore.return_types.max), as PyTorch does.
void add_named_returns(nb::module_& m, const char* name, std::initializer_list<const char*> fields);
// The submodule that holds the functions of `python_module: NAME` entries (tcore._C._nn, _linalg,
// _special, _fft, as torch._C has them): made on first use and listed in tcore._C._python_modules.
nb::module_ python_module(nb::module_& m, const char* name);

}  // namespace tcore::python

namespace nanobind::detail {

// A Tensor as Python sees it: the object that already holds the same TensorImpl where one does
// (x.add_(1) is x, x.contiguous() is x, p.grad is p.grad, as in PyTorch), else a new object,
// recorded in the impl (TensorImpl's py_object) for the next time; nanobind's own caster otherwise.
template <>
struct type_caster<tcore::Tensor> : type_caster_base<tcore::Tensor> {
  // an object kept by its tensor and reached through a weak reference holds its tensor again when
  // used; one whose tensor is gone since is refused (a TypeError), never read
  bool from_python(handle src, uint32_t flags, cleanup_list* cleanup) noexcept {
    if (!type_caster_base<tcore::Tensor>::from_python(src, flags, cleanup)) return false;
    tcore::Tensor* inside = *this;  // (an object under construction, __init__'s self, holds nothing yet)
    return inside == nullptr || !inst_ready(src) || inside->defined() ||
           tcore::python::revive_kept_object(src.ptr(), inside);
  }

  template <typename T>
  static handle from_cpp(T&& value, rv_policy policy, cleanup_list* cleanup) noexcept {
    const tcore::Tensor* t;
    if constexpr (is_pointer_v<T>) t = value;
    else t = &value;
    const rv_policy effective = infer_policy<T>(policy);
    // a reference to a Tensor (an in-place or out= operator's argument, returned): the object that
    // holds that very Tensor, nanobind's lookup by address (x.add_(1) is x even while another object
    // was made for x's tensor)
    if (effective == rv_policy::reference || effective == rv_policy::reference_internal)
      return type_caster_base<tcore::Tensor>::from_cpp(std::forward<T>(value), policy, cleanup);
    if (t != nullptr && t->defined()) {
      tcore::PyObjectSlot& slot = t->impl()->py_object;
      PyObject* held = static_cast<PyObject*>(slot.object());
      if (held != nullptr && slot.owned()) {  // kept alive by the tensor: Python's again
        tcore::python::adopt_kept_object(held, inst_ptr<tcore::Tensor>(held), *t);
        return handle(held);  // the slot's reference, now the caller's
      }
      // (an object being deallocated, its weak references' callbacks running, has no references
      // left: a new object stands for the tensor then, and the dying one's Tensor forgets nothing)
      if (held != nullptr && Py_REFCNT(held) > 0) return handle(held).inc_ref();
    }
    const handle h = type_caster_base<tcore::Tensor>::from_cpp(std::forward<T>(value), policy, cleanup);
    if (h.is_valid() && (effective == rv_policy::copy || effective == rv_policy::move)) {  // the object owns its Tensor
      tcore::Tensor* inside = inst_ptr<tcore::Tensor>(h);
      if (inside->defined()) inside->impl()->py_object.set(h.ptr(), inside);
    }
    return h;
  }
};

template <>
struct type_caster<tcore::Scalar> {
  NB_TYPE_CASTER(tcore::Scalar, const_name("int | float | bool"))

  bool from_python(handle src, uint8_t flags, cleanup_list*) noexcept {
    if (PyBool_Check(src.ptr())) {
      value = tcore::Scalar(src.ptr() == Py_True);
      return true;
    }
    if (PyLong_Check(src.ptr()) || PyIndex_Check(src.ptr())) {
      if (PyFloat_Check(src.ptr())) return false;
      // an object that only has __index__ (an integer tensor, a numpy integer) is a number only in
      // nanobind's second, converting pass: a Tensor overload takes a tensor first, as torch's parser
      // does (int8.clamp(max=tensor(300)) is clamp.Tensor's, not clamp's with a number)
      if (!PyLong_Check(src.ptr()) && !(flags & static_cast<uint8_t>(cast_flags::convert))) return false;
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(src.ptr(), &overflow);
      if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      if (overflow) return false;
      value = tcore::Scalar(static_cast<int64_t>(v));
      return true;
    }
    if (PyFloat_Check(src.ptr())) {
      value = tcore::Scalar(PyFloat_AsDouble(src.ptr()));
      return true;
    }
    return false;
  }

  static handle from_cpp(const tcore::Scalar& s, rv_policy, cleanup_list*) noexcept {
    if (s.is_bool()) return PyBool_FromLong(s.to<bool>());
    if (s.is_integral()) return PyLong_FromLongLong(s.to_long());
    return PyFloat_FromDouble(s.to_double());
  }
};

template <>
struct type_caster<tcore::python::IntList> {
  NB_TYPE_CASTER(tcore::python::IntList, const_name("int | Sequence[int]"))

  static bool as_int(PyObject* o, int64_t& out) {
    if (PyBool_Check(o) || PyFloat_Check(o) || !PyIndex_Check(o)) return false;
    PyObject* idx = PyNumber_Index(o);
    if (!idx) {
      PyErr_Clear();
      return false;
    }
    const long long v = PyLong_AsLongLong(idx);
    Py_DECREF(idx);
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    out = v;
    return true;
  }

  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    value.values.clear();
    int64_t single = 0;
    if (as_int(src.ptr(), single)) {
      value.values.push_back(single);
      return true;
    }
    if (!PyList_Check(src.ptr()) && !PyTuple_Check(src.ptr())) return false;
    PyObject* seq = src.ptr();
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject** items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; ++i) {
      int64_t v = 0;
      if (!as_int(items[i], v)) return false;
      value.values.push_back(v);
    }
    return true;
  }

  static handle from_cpp(const tcore::python::IntList& l, rv_policy, cleanup_list*) noexcept {
    PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(l.values.size()));
    for (size_t i = 0; i < l.values.size(); ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(l.values[i]));
    return t;
  }
};

}  // namespace nanobind::detail
