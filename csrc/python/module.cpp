// The tcore._C extension: core types by hand, every operator from the generated shards.
#include <nanobind/ndarray.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <unordered_map>

#include <nanobind/stl/pair.h>
#include <tcore/ops/add_ops.h>
#include <tcore/ops/contiguous.h>
#include <tcore/ops/empty.h>

#include "python/bind.h"
#include "tcore/core/Autocast.h"
#include "tcore/core/CPUAllocator.h"
#include "tcore/core/CPUCapability.h"
#include "python/python_bindings.h"
#include "tcore/core/Dispatch.h"
#include "tcore/core/FunctionalTensor.h"
#include "tcore/core/Parallel.h"
#include "tcore/core/Random.h"
#include "tcore/cuda/CUDA.h"
#include "tcore/data/mnist.h"
#include "tcore/jit/graph.h"
#include "tcore/jit/ivalue.h"
#include "tcore/jit/tracer.h"
#include "tcore/lazy/Lazy.h"
#include "tcore/version.h"

namespace tcore::python {

void bind_autograd(nb::module_& m, nb::class_<Tensor>& cls);  // python/autograd.cpp
void bind_errors(nb::module_& m);                              // python/errors.cpp
void bind_tensor_extras(nb::class_<Tensor>& cls);              // python/tensor_extras.cpp
int traverse_grad_fn(const Tensor& t, visitproc visit, void* arg);  // python/function.cpp
void bind_autocast(nb::module_& m);

void add_named_returns(nb::module_& m, const char* name, std::initializer_list<const char*> fields) {
  nb::dict registry = nb::borrow<nb::dict>(m.attr("_named_returns"));
  nb::list names;
  for (const char* f : fields) names.append(nb::str(f));
  registry[name] = nb::tuple(names);
}

nb::module_ python_module(nb::module_& m, const char* name) {
  const std::string attr = std::string("_") + name;
  if (nb::hasattr(m, attr.c_str())) return nb::borrow<nb::module_>(m.attr(attr.c_str()));
  nb::module_ sub = m.def_submodule(attr.c_str(), "the operators of native_functions.yaml's python_module entries");
  nb::borrow<nb::list>(m.attr("_python_modules")).append(nb::str(name));
  return sub;
}

void add_names(nb::module_& m, const char* registry_name, std::initializer_list<const char*> names) {
  nb::list registry = nb::borrow<nb::list>(m.attr(registry_name));
  for (const char* n : names) registry.append(nb::str(n));
}

namespace {

// tcore.Size (tcore/_size.py, a tuple subclass): what .shape and .size() return once tcore's
// __init__ has set it; a plain tuple before.
nb::object& size_class() {
  static nb::object* cls = new nb::object();  // (never destroyed: outlives the interpreter's teardown)
  return *cls;
}

nb::object shape_object(const Tensor& t) {
  nb::tuple sizes = nb::tuple(nb::cast(t.sizes().vec()));
  return size_class().is_valid() ? size_class()(sizes) : nb::object(sizes);
}

nb::dlpack::dtype dl_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return nb::dtype<bool>();
    case ScalarType::Byte: return nb::dtype<uint8_t>();
    case ScalarType::Char: return nb::dtype<int8_t>();
    case ScalarType::Short: return nb::dtype<int16_t>();
    case ScalarType::Int: return nb::dtype<int32_t>();
    case ScalarType::Long: return nb::dtype<int64_t>();
    case ScalarType::Float: return nb::dtype<float>();
    case ScalarType::Double: return nb::dtype<double>();
    case ScalarType::Half: return {static_cast<uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
    default: throw TypeError(std::string("Got unsupported ScalarType ") + to_string(t) + " (numpy has no such dtype; "
                             "convert first, e.g. tensor.float())");
  }
}

ScalarType from_dl_dtype(nb::dlpack::dtype d) {
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const auto t = static_cast<ScalarType>(i);
    if (t == ScalarType::BFloat16) continue;  // numpy has no bfloat16
    const auto dt = dl_dtype(t);
    if (dt.code == d.code && dt.bits == d.bits && dt.lanes == d.lanes) return t;
  }
  throw TypeError("can't convert numpy array of this dtype; supported: bool, uint8, int8, int16, int32, int64, "
                  "float16, float32, float64");
}

using Array = nb::ndarray<nb::numpy, nb::device::cpu>;

// A numpy array sharing the tensor's memory (any strides); it keeps the storage alive, and resize_
// may no longer replace that memory (`shared`: the user's array; tcore's own short reads need not).
Array to_numpy(const Tensor& tensor, bool shared = true) {
  // a lazy tensor's values are computed (its pending graph runs) and copied out
  const Tensor t = lazy::is_lazy(tensor) ? lazy::to_cpu_copy(tensor) : tensor;
  TCORE_CHECK_TYPE(t.device().is_cpu(), "can't convert ", t.device().str(),  // torch's TypeError and words
                   " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  if (shared && t.storage().defined()) t.storage().forbid_resize();  // resize_ may not free what it reads
  auto* keep = new Tensor(t);
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  std::vector<size_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  return Array(t.data_ptr(), shape.size(), shape.data(), owner, strides.data(), dl_dtype(t.dtype()));
}

// A tensor sharing the array's memory; the storage holds a reference to the array.
// PyTorch's errors for what from_numpy cannot share: not an ndarray, a byte order other
// than the machine's, or a dtype with no tensor counterpart (strings, objects, records).
void check_numpy_array(nb::handle arr) {
  nb::module_ np = nb::module_::import_("numpy");
  if (!nb::isinstance(arr, np.attr("ndarray"))) {
    throw TypeError(std::string("expected np.ndarray (got ") + Py_TYPE(arr.ptr())->tp_name + ")");
  }
  nb::object dtype = arr.attr("dtype");
  const std::string kind = nb::cast<std::string>(dtype.attr("kind"));
  const bool fields = !dtype.attr("fields").is_none();
  if (fields || kind.size() != 1 || std::string("biuf").find(kind[0]) == std::string::npos) {
    throw TypeError("can't convert np.ndarray of type " + nb::cast<std::string>(nb::str(dtype)) +
                    ". The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, "
                    "and bool.");
  }
  if (!nb::cast<bool>(dtype.attr("isnative"))) {
    throw ValueError("given numpy array has byte order different from the native byte order. Conversion between "
                     "byte orders is currently not supported.");
  }
}

// private: an array nobody else sees (tcore.tensor's copy), whose memory resize_ may replace
Tensor from_numpy(nb::ndarray<nb::numpy, nb::device::cpu> a, nb::handle obj, bool private_copy = false) {
  const ScalarType dtype = from_dl_dtype(a.dtype());
  std::vector<int64_t> sizes, strides;
  int64_t extent = 1;
  for (size_t d = 0; d < a.ndim(); ++d) {
    sizes.push_back(static_cast<int64_t>(a.shape(d)));
    TCORE_CHECK_VALUE(a.stride(d) >= 0, "from_numpy: arrays with negative strides are not supported; "
                      "make a copy first (numpy.ascontiguousarray)");
    strides.push_back(a.stride(d));
    extent += (sizes.back() - 1) * strides.back();
  }
  PyObject* ref = obj.ptr();
  Py_INCREF(ref);
  const size_t nbytes = a.size() == 0 ? 0 : static_cast<size_t>(extent) * element_size(dtype);
  auto storage = std::make_shared<StorageImpl>(a.data(), nbytes, Device(DeviceType::CPU), [ref](void*) {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    Py_DECREF(ref);
  }, private_copy);
  return Tensor(std::make_shared<TensorImpl>(Storage(storage), dtype, sizes, strides, 0));
}

// Python value -> IValue, by its Python type (the unboxing code checks it against the schema).
jit::IValue to_ivalue(nb::handle h, int depth = 0) {
  if (h.is_none()) return {};
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  if (PyBool_Check(h.ptr())) return h.ptr() == Py_True;
  if (nb::isinstance<ScalarType>(h)) return static_cast<int64_t>(nb::cast<ScalarType>(h));
  if (nb::isinstance<Layout>(h)) return static_cast<int64_t>(nb::cast<Layout>(h));
  if (nb::isinstance<MemoryFormat>(h)) return static_cast<int64_t>(nb::cast<MemoryFormat>(h));
  if (nb::isinstance<Device>(h)) return nb::cast<Device>(h).str();
  if (PyLong_Check(h.ptr())) return nb::cast<int64_t>(h);
  if (PyFloat_Check(h.ptr())) return nb::cast<double>(h);
  if (PyUnicode_Check(h.ptr())) return nb::cast<std::string>(h);
  if (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr())) {
    // as deep as the IR allows, never a C stack overflow (a list that holds itself is infinitely deep)
    TCORE_CHECK_VALUE(depth < jit::kMaxListDepth, "cannot pass a list nested deeper than ", jit::kMaxListDepth,
                      " levels to a boxed operator");
    jit::List l;
    for (nb::handle x : nb::borrow<nb::sequence>(h)) l.push_back(to_ivalue(x, depth + 1));
    return l;
  }
  throw TypeError(std::string("cannot pass a ") + Py_TYPE(h.ptr())->tp_name + " to a boxed operator");
}

nb::object from_ivalue(const jit::IValue& v) {
  return std::visit([](const auto& x) -> nb::object {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, std::monostate>) return nb::none();
    else if constexpr (std::is_same_v<T, jit::List>) {
      nb::list l;
      for (const auto& e : x) l.append(from_ivalue(e));
      return l;
    } else return nb::cast(x);
  }, v.value);
}

nb::object item(const Tensor& tensor) {
  TCORE_CHECK_VALUE(tensor.numel() == 1, "a Tensor with ", tensor.numel(), " elements cannot be converted to Scalar");
  Tensor t = tensor;
  if (lazy::is_lazy(t)) {
    t = lazy::to_eager(t);
  } else if (!t.device().is_cpu()) {  // one element comes back to the host
    t = empty_cpu(tensor.sizes(), tensor.dtype());
    cuda::copy(t, tensor);
  }
  return dispatch_all_types(t.dtype(), "item", [&](auto tag) -> nb::object {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, t.data_ptr(), sizeof(T));
    if constexpr (std::is_same_v<T, bool>) return nb::bool_(v);
    else if constexpr (std::is_floating_point_v<T>) return nb::float_(static_cast<double>(v));
    else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      return nb::float_(static_cast<double>(static_cast<float>(v)));
    else return nb::int_(static_cast<int64_t>(v));
  });
}

void bind_types(nb::module_& m) {
  nb::enum_<ScalarType> dtype(m, "dtype");
#define TCORE_VALUE(cpp, name, py) dtype.value(#py, ScalarType::name);
  TCORE_FORALL_ALL_SCALAR_TYPES(TCORE_VALUE)
#undef TCORE_VALUE
  nb::enum_<Layout>(m, "layout").value("strided", Layout::Strided);
  nb::enum_<MemoryFormat>(m, "memory_format")
      .value("contiguous_format", MemoryFormat::Contiguous)
      .value("preserve_format", MemoryFormat::Preserve)
      .value("channels_last", MemoryFormat::ChannelsLast);
  nb::class_<Generator>(m, "Generator",
                        "A random number generator (a 64-bit Mersenne Twister); copies share its state.")
      .def(nb::init<>())
      .def("manual_seed", [](Generator& g, uint64_t seed) { return Generator(g.manual_seed(seed)); },
           nb::arg("seed"))  // a copy: it shares the state
      .def("initial_seed", &Generator::initial_seed)
      .def("seed", &Generator::seed)
      .def("get_state", [](const Generator& g) {  // torch's: a uint8 tensor of the state's bytes
        const std::string state = g.get_state();
        Tensor t = tcore::empty({static_cast<int64_t>(state.size())}, ScalarType::Byte);
        std::memcpy(t.data_ptr(), state.data(), state.size());
        return t;
      })
      .def("set_state", [](Generator& g, const Tensor& state) {
        if (state.dtype() != ScalarType::Byte || state.dim() != 1 || !state.device().is_cpu())
          throw TypeError("set_state: expected a 1-D uint8 CPU tensor (a state get_state gave)");
        const Tensor bytes = tcore::contiguous(state);
        g.set_state(std::string(static_cast<const char*>(bytes.data_ptr()), static_cast<size_t>(bytes.numel())));
        return g;
      }, nb::arg("new_state"))
      .def("__repr__", [](const Generator& g) {
        return "<tcore.Generator initial_seed=" + std::to_string(g.initial_seed()) + ">";
      });
  m.attr("default_generator") = default_generator();
  nb::class_<Device>(m, "device")
      .def(nb::init<const std::string&>(), nb::arg("type"))
      .def("__init__", [](Device* d, const std::string& type, int index) {
        new (d) Device(type);
        d->index = static_cast<DeviceIndex>(index);
      }, nb::arg("type"), nb::arg("index"))
      .def_prop_ro("type", [](const Device& d) { return Device(d.type).str(); })
      .def_prop_ro("index", [](const Device& d) -> std::optional<int> {
        return d.index < 0 ? std::nullopt : std::optional<int>(d.index);
      })
      .def("__str__", &Device::str)
      .def("__repr__", [](const Device& d) {
        return "device(type='" + Device(d.type).str() + "'" + (d.index >= 0 ? ", index=" + std::to_string(d.index) : "") + ")";
      })
      .def("__eq__", [](const Device& a, const Device& b) { return a == b; })
      .def("__hash__", [](const Device& d) { return static_cast<int>(d.type) * 256 + d.index; });
  nb::implicitly_convertible<std::string, Device>();
  m.def("element_size", [](ScalarType t) { return element_size(t); });
  m.def("manual_seed", [](uint64_t seed) { tcore::manual_seed(seed); }, nb::arg("seed"),
        "Seeds the default random generator (rand, randn, randint, uniform_, normal_, random_)");
  m.def("promote_types", &promote_types);
  bind_autocast(m);
  m.def("_get_default_dtype", &default_float_dtype);
  m.def("_set_default_dtype", &set_default_float_dtype, nb::arg("d"));
  m.def("set_num_threads", &tcore::set_num_threads, nb::arg("num"),
        "Sets the number of threads large CPU kernels use (intra-op parallelism).");
  m.def("get_num_threads", &tcore::get_num_threads, "The number of threads large CPU kernels use.");
  m.attr("_has_openmp") = tcore::has_openmp();
  m.def("_cuda_is_built", &cuda::is_built);
  m.def("_cuda_runtime", [] { return std::string(cuda::runtime()); });
  m.def("_cuda_is_available", &cuda::is_available);
  m.def("_cuda_unavailable_reason", [] { return std::string(cuda::unavailable_reason()); });
  m.def("_cuda_device_count", &cuda::device_count);
  m.def("_cuda_current_device", &cuda::current_device);
  m.def("_cuda_set_device", &cuda::set_device, nb::arg("device"));
  m.def("_cuda_synchronize", &cuda::synchronize, nb::arg("device") = -1);
  m.def("_cuda_memory_allocated", &cuda::memory_allocated, nb::arg("device") = -1);
  m.def("_cuda_memory_reserved", &cuda::memory_reserved, nb::arg("device") = -1);
  m.def("_cuda_empty_cache", &cuda::empty_cache);
  // streams cross as integers (the cudaStream_t handle; 0 is the default stream)
  m.def("_cuda_current_stream", [](int device) { return reinterpret_cast<uintptr_t>(cuda::current_stream(device)); },
        nb::arg("device") = -1);
  m.def("_cuda_set_current_stream",
        [](uintptr_t stream, int device) { cuda::set_current_stream(reinterpret_cast<void*>(stream), device); },
        nb::arg("stream"), nb::arg("device") = -1);
  m.def("_cuda_create_stream", [](int device) { return reinterpret_cast<uintptr_t>(cuda::create_stream(device)); },
        nb::arg("device") = -1);
  m.def("_cuda_destroy_stream", [](uintptr_t stream) { cuda::destroy_stream(reinterpret_cast<void*>(stream)); });
  m.def("_cuda_stream_query", [](uintptr_t stream) { return cuda::stream_query(reinterpret_cast<void*>(stream)); });
  m.def("_cuda_stream_synchronize",
        [](uintptr_t stream) { cuda::stream_synchronize(reinterpret_cast<void*>(stream)); });
 // tcore.lazy (tcore/lazy/Lazy.h)
  m.def("_lazy_sync", [](const std::vector<Tensor>& ts) { lazy::sync(ts); }, nb::arg("tensors"));
  m.def("_lazy_ir", [](const std::vector<Tensor>& ts) { return lazy::ir_text(ts); }, nb::arg("tensors"));
  m.def("_lazy_reset_metrics", &lazy::reset_metrics);
  m.def("_lazy_clear_compiled", &lazy::clear_compiled);
  m.def("_lazy_metrics", [] {
    lazy::Metrics mt = lazy::metrics();
    nb::dict d;
    d["graphs_compiled"] = mt.graphs_compiled;
    d["cache_hits"] = mt.cache_hits;
    d["syncs"] = mt.syncs;
    d["nodes_recorded"] = mt.nodes_recorded;
    d["nodes_executed"] = mt.nodes_executed;
    d["buffers_reused"] = mt.buffers_reused;
    nb::dict fb;
    for (const auto& [op, n] : mt.eager_fallbacks) fb[op.c_str()] = n;
    d["eager_fallbacks"] = fb;
    return d;
  });
  m.def("_registered_keys", [](const std::string& name) {  // the dispatch keys with a kernel for one overload
    const OperatorEntry* e = OperatorEntry::find(name.rfind("tcore::", 0) == 0 ? name : "tcore::" + name);
    TCORE_CHECK_VALUE(e != nullptr, "no operator ", name);
    std::vector<std::string> keys;
    for (int k = 0; k < static_cast<int>(DispatchKey::NumKeys); ++k)
      if (e->has_kernel(static_cast<DispatchKey>(k))) keys.push_back(to_string(static_cast<DispatchKey>(k)));
    return keys;
  }, nb::arg("name"));
}

}  // namespace

nb::object ivalue_to_python(const jit::IValue& v) { return from_ivalue(v); }

namespace {

PyTypeObject* tensor_type = nullptr;
destructor nanobind_tensor_dealloc = nullptr;
traverseproc nanobind_tensor_traverse = nullptr;
inquiry nanobind_tensor_clear = nullptr;

// The objects kept alive by their tensors (under the GIL), each with its tensor, to revive it by
// (never freed: impls may end after the interpreter, at exit)
auto& kept_objects = *new std::unordered_map<PyObject*, std::weak_ptr<TensorImpl>>();

// Whether C++ still holds the tensor of this tcore.Tensor object (the one recorded for it): then
// its end would be a resurrection (tensor_dealloc), and it is never garbage (tensor_traverse).
bool resurrectable(PyObject* self) {
  if (Py_TYPE(self) != tensor_type || !nb::inst_ready(nb::handle(self))) return false;
  const Tensor* inside = nb::inst_ptr<Tensor>(nb::handle(self));
  return inside->defined() && inside->impl()->py_object.object() == self && inside->impl_ptr().use_count() > 1;
}

// PyTorch's object preservation (TensorImpl's PyObjectSlot): a Tensor object whose last Python
// reference goes while C++ still holds its tensor (x.grad, a saved tensor, a view's base) is
// resurrected and handed to the tensor, so `g = x.grad; g.tag = 1; del g` keeps x.grad.tag and its
// weak references live as long as the tensor; the object lets go of the tensor meanwhile (no
// cycle). Exactly tcore.Tensor objects: a Python subclass's instance (nn.Parameter) is torn down
// by its own type first, so it dies as before.
void tensor_dealloc(PyObject* self) {
  if (resurrectable(self)) {
    _Py_NewReference(self);  // its one reference, the slot's (as torch's THPVariable_tryResurrect)
    Tensor* inside = nb::inst_ptr<Tensor>(nb::handle(self));
    const std::shared_ptr<TensorImpl> impl = inside->impl_ptr();
    *inside = Tensor();
    kept_objects[self] = impl;
    impl->py_object.own(self);
    return;  // (were `impl` the last holder after all, its end releases the object right here)
  }
  nanobind_tensor_dealloc(self);
}

// The cyclic collector is shown none of a resurrectable object's references (as torch's
// THPVariable_subclass_traverse), so it does not clear its attributes as part of a cycle. An
// object that alone holds its tensor, itself alone holding its grad_fn, also shows the node's
// Python objects (a custom Function's context and backward).
int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  if (resurrectable(self)) {
    Py_VISIT(Py_TYPE(self));
    return 0;
  }
#ifdef TCORE_WITH_AUTOGRAD
  if (nb::inst_ready(nb::handle(self))) {
    if (const int r = traverse_grad_fn(*nb::inst_ptr<Tensor>(nb::handle(self)), visit, arg)) return r;
  }
#endif
  return nanobind_tensor_traverse(self, visit, arg);
}

int tensor_clear(PyObject* self) { return resurrectable(self) ? 0 : nanobind_tensor_clear(self); }

// the slot's reference dropped when the tensor ends, under the GIL, on any thread; nothing once
// the interpreter is ending (the object is left)
void release_kept_object(void* object) {
#if PY_VERSION_HEX >= 0x030D0000
  if (!Py_IsInitialized() || Py_IsFinalizing()) return;
#else
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
#endif
  const PyGILState_STATE gil = PyGILState_Ensure();
  kept_objects.erase(static_cast<PyObject*>(object));
  Py_DECREF(static_cast<PyObject*>(object));
  PyGILState_Release(gil);
}

}  // namespace

void adopt_kept_object(PyObject* object, Tensor* inside, const Tensor& tensor) noexcept {
  kept_objects.erase(object);
  *inside = tensor;
  tensor.impl()->py_object.disown(inside);
}

bool revive_kept_object(PyObject* object, Tensor* inside) noexcept {
  const auto it = kept_objects.find(object);
  if (it == kept_objects.end()) return false;
  std::shared_ptr<TensorImpl> impl = it->second.lock();
  if (!impl || !impl->py_object.owned() || impl->py_object.object() != object) return false;
  kept_objects.erase(it);
  *inside = Tensor(std::move(impl));
  inside->impl()->py_object.disown(inside);
  Py_DECREF(object);  // the slot's reference; the caller's keep it
  return true;
}

// torch.autocast's state (tcore/amp.py) and the casts of the Python functionals of its lists
void bind_autocast(nb::module_& m) {
  namespace ac = autocast;
  m.def("_autocast_active", &ac::active);
  m.def("_autocast_is_enabled", [](const Device& d) { return ac::is_enabled(d.type); }, nb::arg("device_type"));
  m.def("_autocast_set_enabled", [](const Device& d, bool on) { ac::set_enabled(d.type, on); }, nb::arg("device_type"),
        nb::arg("enabled"));
  m.def("_autocast_dtype", [](const Device& d) { return ac::dtype(d.type); }, nb::arg("device_type"));
  m.def("_autocast_set_dtype", [](const Device& d, ScalarType t) { ac::set_dtype(d.type, t); }, nb::arg("device_type"),
        nb::arg("dtype"));
  m.def("_autocast_is_cache_enabled", &ac::is_cache_enabled);
  m.def("_autocast_set_cache_enabled", &ac::set_cache_enabled, nb::arg("enabled"));
  m.def("_autocast_clear_cache", &ac::clear_cache);
  m.def("_autocast_increment_nesting", &ac::increment_nesting);
  m.def("_autocast_decrement_nesting", &ac::decrement_nesting);
  m.def("_autocast_set_below", &ac::set_below, nb::arg("below"));
  m.def("_autocast_cast", [](int policy, const std::vector<std::optional<Tensor>>& tensors) {
    TCORE_CHECK_VALUE(policy >= 0 && policy <= 2, "_autocast_cast: unknown policy ", policy);
    ac::Target to{static_cast<ac::Policy>(policy)};
    if (to.policy == ac::Policy::Promote) ac::widen(to, ArrayRef<std::optional<Tensor>>(tensors));
    return ac::cast(to, ArrayRef<std::optional<Tensor>>(tensors));
  }, nb::arg("policy"), nb::arg("tensors"));
}

nb::class_<Tensor> bind_tensor(nb::module_& m) {
  // weak references and attributes of one's own, as torch.Tensor's (one Python object per tensor:
  // python/bind.h's caster), kept while the tensor lives (tensor_dealloc)
  nb::class_<Tensor> cls(m, "Tensor", nb::is_weak_referenceable(), nb::dynamic_attr());
  tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  nanobind_tensor_dealloc = tensor_type->tp_dealloc;
  tensor_type->tp_dealloc = tensor_dealloc;
  nanobind_tensor_traverse = tensor_type->tp_traverse;
  nanobind_tensor_clear = tensor_type->tp_clear;
  if (nanobind_tensor_traverse != nullptr) tensor_type->tp_traverse = tensor_traverse;
  if (nanobind_tensor_clear != nullptr) tensor_type->tp_clear = tensor_clear;
  tcore::detail::py_object_release = release_kept_object;
  cls.def_prop_ro("shape", [](const Tensor& t) { return shape_object(t); })
      .def("size", [](const Tensor& t) { return shape_object(t); })
      .def("size", [](const Tensor& t, int64_t d) { return t.size(d); }, nb::arg("dim"))
      .def("stride", [](const Tensor& t) { return nb::tuple(nb::cast(t.strides().vec())); })
      .def("stride", [](const Tensor& t, int64_t d) { return t.stride(d); }, nb::arg("dim"))
      .def_prop_ro("dtype", &Tensor::dtype)
      .def_prop_ro("device", &Tensor::device)
      .def_prop_ro("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("element_size", &Tensor::element_size)
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", [](const Tensor& t, MemoryFormat f) { return t.is_contiguous(f); },
           nb::arg("memory_format") = MemoryFormat::Contiguous)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("_storage_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.storage().data()); })
      .def_prop_ro("_version", &Tensor::version)
      .def("_is_same", &Tensor::is_same)
      .def("numpy", [](const Tensor& t) {
        TCORE_CHECK(!t.requires_grad(), "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                                        "instead.");
        return to_numpy(t);
      }, nb::rv_policy::reference)
      .def("_numpy_read", [](const Tensor& t) { return to_numpy(t, false); }, nb::rv_policy::reference,
           "numpy() for tcore's own reads (tolist, repr, copies), which keep no array: the tensor stays resizable")
      .def("item", &item);
  m.def("from_numpy", [](nb::handle arr) {
    check_numpy_array(arr);
    nb::ndarray<nb::numpy, nb::device::cpu> a;
    if (!nb::try_cast(arr, a)) {
      throw TypeError(std::string("from_numpy: can't share the memory of this array (dtype ") +
                      nb::cast<std::string>(nb::str(arr.attr("dtype"))) + "): its strides or layout are not supported");
    }
    return from_numpy(a, arr);
  }, nb::arg("ndarray"));
  m.def("_from_private_array", [](nb::handle arr) {
    nb::ndarray<nb::numpy, nb::device::cpu> a;
    TCORE_CHECK_TYPE(nb::try_cast(arr, a), "_from_private_array: expected a numpy array");
    return from_numpy(a, arr, true);
  }, nb::arg("ndarray"), "A tensor over an array nobody else holds (tcore.tensor's copy): resize_ may replace its memory.");
  m.def("_read_idx", &data::read_idx, nb::arg("path"));
  m.def("_cpu_empty_cache", &cpu::empty_cache);
  // a Python number as a 0-d tensor that promotes as the number (the right operand of 2 - x)
  m.def("_wrapped_number", [](const Scalar& value) { return wrapped_scalar_tensor(value); }, nb::arg("value"));
  // tcore.backends.cpu: the CPU capability whose kernels run (tcore/core/CPUCapability.h)
  m.def("_get_cpu_capability", [] { return std::string(get_cpu_capability()); });
  m.def("_cpu_vector_math", [] { return std::string(cpu_vector_math()); });
  m.def("_cpu_blas", [] { return std::string(cpu_blas()); });
  m.def("_cpu_convolution", [] { return std::string(cpu_convolution()); });
  m.def("_cpu_capabilities", [] {
    int n = 0;
    const CPUCapabilityInfo* table = cpu_capabilities(&n);
    nb::list out;
    for (int i = 0; i < n; ++i) out.append(nb::make_tuple(table[i].name, table[i].compiled, table[i].supported));
    return out;
  });
  m.def("_cpu_allocator_stats", [] {
    const cpu::AllocatorStats s = cpu::stats();
    nb::dict d;
    d["allocated_bytes"] = s.allocated_bytes;
    d["cached_bytes"] = s.cached_bytes;
    d["cache_hits"] = s.cache_hits;
    d["cache_misses"] = s.cache_misses;
    d["cache_limit_bytes"] = s.cache_limit_bytes;
    return d;
  });
  m.def("_boxed_operators", [] {
    nb::list out;
    for (const jit::BoxedOperator* op : jit::boxed_operators()) {
      nb::list args;
      for (const auto& a : op->arguments)
        args.append(nb::make_tuple(a.name, a.type, a.has_default, a.kwarg_only, from_ivalue(a.default_value)));
      out.append(nb::make_tuple(op->name, op->schema, args, op->returns));
    }
    return out;
  });
  nb::class_<jit::Graph>(m, "Graph")
      .def_static("load", &jit::Graph::load, nb::arg("path"))
      .def_static("parse", &jit::Graph::parse, nb::arg("text"), nb::arg("filename") = "<graph>")
      .def("operators", &jit::Graph::operators)
      .def("__str__", &jit::Graph::text)
      .def_prop_ro("inputs", &jit::Graph::inputs)
      .def("__call__", [](const jit::Graph& g, nb::args args) {
        jit::Stack stack;
        for (nb::handle a : args) stack.push_back(to_ivalue(a));
        jit::Stack out;
        {
          nb::gil_scoped_release nogil;
          out = g.run(std::move(stack));
        }
        if (out.size() == 1) return from_ivalue(out[0]);
        nb::list l;
        for (const auto& v : out) l.append(from_ivalue(v));
        return nb::object(nb::tuple(l));
      });
  m.def("_unselected_operators", [] { return unselected_operators(); });
  // Nanoseconds per call of add.Tensor on 1-element tensors, typed and through the boxed
  // path, timed in C++ (scripts/bench_jit.py).
  m.def("_bench_call_overhead", [](int64_t iterations) {
    nb::gil_scoped_release nogil;
    const Tensor a = empty_cpu({1}, ScalarType::Float), b = empty_cpu({1}, ScalarType::Float);
    using clock = std::chrono::steady_clock;
    double typed = 1e300, boxed = 1e300;
    for (int round = 0; round < 3; ++round) {  // alternate, keep the best of each
      auto t0 = clock::now();
      for (int64_t i = 0; i < iterations; ++i) (void)tcore::ops::add_Tensor::call(a, b, 1);
      auto t1 = clock::now();
      for (int64_t i = 0; i < iterations; ++i)
        (void)jit::call_boxed("add.Tensor", {jit::IValue(a), jit::IValue(b), jit::IValue(int64_t{1})});
      auto t2 = clock::now();
      typed = std::min(typed, std::chrono::duration<double, std::nano>(t1 - t0).count());
      boxed = std::min(boxed, std::chrono::duration<double, std::nano>(t2 - t1).count());
    }
    const double n = static_cast<double>(iterations);
    return std::make_pair(typed / n, boxed / n);
  });
  m.def("_trace_start", [](std::vector<Tensor> inputs) { jit::tracer::start(inputs); });
  m.def("_trace_stop", [](std::vector<Tensor> outputs) { return jit::tracer::stop(outputs); });
  m.def("_trace_abandon", &jit::tracer::abandon);
  // tcore.func.functionalize (tcore/func.py): the mode, and the wrappers it runs a function on
  m.def("_functionalize_set", [](bool on) { Functionalizing::set_active(on); });
  m.def("_functionalize_active", [] { return Functionalizing::active(); });
  m.def("_functionalize_views_as_copies", [](bool on) { functionalization::set_views_as_copies(on); });
  m.def("_to_functional", [](const Tensor& t) { return functionalization::wrap(t); });
  m.def("_from_functional", [](const Tensor& t) {
    nb::gil_scoped_release nogil;
    return functionalization::unwrap(t);
  });
  m.def("_is_functional", [](const Tensor& t) { return functionalization::is_functional(t); });
  m.def("_functional_mutated", [](const Tensor& t) { return functionalization::was_mutated(t); });
  m.def("_call_boxed", [](const std::string& name, nb::list args) {
    jit::Stack stack;
    for (nb::handle a : args) stack.push_back(to_ivalue(a));
    jit::Stack out;
    {
      nb::gil_scoped_release nogil;
      out = jit::call_boxed(name, std::move(stack));
    }
    nb::list results;
    for (const auto& v : out) results.append(from_ivalue(v));
    return results;
  });
  m.def("_schemas", [] {
    std::vector<std::string> out;
    for (const OperatorEntry* e : OperatorEntry::all()) out.push_back(e->schema());
    return out;
  });
  return cls;
}

}  // namespace tcore::python

NB_MODULE(_C, m) {
  using namespace tcore::python;
  bind_errors(m);
  m.def("_set_size_class", [](nb::object cls) { size_class() = std::move(cls); }, nb::arg("cls"));
  m.attr("_varargs_size_functions") = nb::list();
  m.attr("_factory_functions") = nb::list();
  m.attr("_named_returns") = nb::dict();
  m.attr("_python_modules") = nb::list();
  m.attr("__version__") = TCORE_VERSION;
  m.attr("_git_revision") = TCORE_GIT_REVISION;
  bind_types(m);
  nb::class_<tcore::Tensor> cls = bind_tensor(m);
  bind_tensor_extras(cls);
  bind_all_functions(m, cls);
#ifdef TCORE_WITH_AUTOGRAD
  bind_autograd(m, cls);
  m.attr("_has_autograd") = true;
#else
  m.attr("_has_autograd") = false;
#endif
}
