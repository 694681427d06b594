#pragma once
// The lazy tensor backend (device "lazy"; PyTorch's lazy tensor core with an interpreter).
//
// A lazy tensor is an ordinary TensorImpl (sizes, strides, offset, version) over a lazy
// storage, whose contents are an IR value: one output of a Node (an operator, its operand
// values, its attributes, the shapes and dtypes of its outputs). Views share the storage, so
// an in-place write through a view is seen by its base and every other view, as in eager mode:
//   - reading a tensor is its storage's value (or an as_strided of it for a view);
//   - an operator records a Node whose output shapes come from the operator's Meta function
//     (the generated kernels, generated/lazy/Lazy_N.cpp), and returns fresh lazy tensors;
//   - an in-place or out= operator records a Node computing the written tensor's new contents
//     and makes it the storage's value (an as_strided_scatter for a view);
//   - an operator without a Meta function runs eagerly on the materialized operands (an
//     "eager fallback", counted in metrics()) and its results become device data.
// Reading values (.to("cpu"), .item(), .numpy(), sync()) cuts the pending graph: it is hashed
// structurally (operators, attributes, shapes, topology; never data), compiled once per hash
// into a program (an order, operand slots, the last use of every value, which writes may reuse
// their operand's buffer), run by the interpreter on the CPU, and the results become device
// data (leaves of the next graph). The second iteration of a training loop compiles nothing.
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "tcore/core/Dispatch.h"
#include "tcore/core/Tensor.h"

namespace tcore::lazy {

struct Node;

// One output of a node; a null node is an absent optional operand.
struct Value {
  std::shared_ptr<Node> node;
  int index = 0;
};

struct Shape {
  std::vector<int64_t> sizes;
  ScalarType dtype;
};

struct TCORE_API Node {
  Node(std::vector<Value> operands, std::vector<Shape> shapes)
      : operands(std::move(operands)), shapes(std::move(shapes)) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual const char* op() const = 0;
  // The attributes' hash, the operator's name included (operands and shapes are the graph's).
  virtual uint64_t attr_hash() const = 0;
  // The outputs' values, from the operands' CPU values. An operand the program no longer needs
  // is handed over (the only reference to its buffer): a write may reuse it (writable()).
  virtual std::vector<Tensor> run(std::vector<Tensor>& in) const = 0;
  // The value of a device data leaf (null for every other node).
  virtual const Tensor* data() const { return nullptr; }
  std::vector<Value> operands;
  std::vector<Shape> shapes;
};

// ------------------------------------------------------------------ tensors
TCORE_API bool is_lazy(const Tensor& t);
// A lazy tensor of uninitialized contents (empty(..., device="lazy")).
TCORE_API Tensor empty(IntArrayRef sizes, ScalarType dtype);
// A fresh contiguous lazy tensor whose contents are v.
TCORE_API Tensor make_tensor(Value v, const Shape& shape);
// t's contents as a value (a copy of a CPU tensor; a CPU tensor other than a 0-dim one is
// the error of mixed devices).
TCORE_API Value value_of(const Tensor& t, const char* op);
// A mutating operator wrote `v` (of shape `shape`) into lazy tensor t; an out= tensor that
// is not a view takes a new shape.
TCORE_API void write(const Tensor& t, Value v, const Shape& shape, const char* op);
// resize_ of a lazy tensor: a larger storage starts uninitialized, as in eager mode.
TCORE_API void resize(const Tensor& t, IntArrayRef sizes);
// A device data leaf holding cpu (taken as it is: it must never be written afterwards).
TCORE_API Value data_value(const Tensor& cpu);
// t's contents on the CPU (runs its pending graph); the result must not be written.
TCORE_API Tensor to_eager(const Tensor& t);
// A CPU tensor of its own with t's contents (.numpy()).
TCORE_API Tensor to_cpu_copy(const Tensor& t);
// A lazy tensor holding cpu's contents.
TCORE_API Tensor from_eager(const Tensor& cpu);
// Runs the pending graphs of these tensors (every live lazy tensor when empty).
TCORE_API void sync(const std::vector<Tensor>& tensors = {});
// The pending graph of these tensors, one line a node (tcore.lazy.ir).
TCORE_API std::string ir_text(const std::vector<Tensor>& tensors);

struct Metrics {
  int64_t graphs_compiled = 0;
  int64_t cache_hits = 0;
  int64_t syncs = 0;
  int64_t nodes_recorded = 0;
  int64_t nodes_executed = 0;
  int64_t buffers_reused = 0;  // writes that reused their operand's buffer
  std::map<std::string, int64_t> eager_fallbacks;
};
TCORE_API Metrics metrics();
TCORE_API void reset_metrics();
TCORE_API void clear_compiled();  // forget every compiled program

// ------------------------------------------------------------------ what the generated kernels use
TCORE_API void count_node();
TCORE_API void count_fallback(const char* op);

// Records one operator: its operands' values in argument order and meta tensors of the same
// geometry (a storage shared by two arguments is one meta storage, so the meta function sees
// the aliasing eager mode would) for the operator's Meta function, which gives the outputs'
// shapes and dtypes and checks the arguments.
class TCORE_API Recorder {
 public:
  explicit Recorder(const char* op);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  Tensor meta(const Tensor& t);  // an operand
  std::optional<Tensor> meta(const std::optional<Tensor>& t);
  std::vector<Tensor> meta(ArrayRef<Tensor> ts);
  Tensor meta_out(const Tensor& t);  // an out= argument: its geometry, not its contents
  std::optional<Device> device(const std::optional<Device>& d) const;
  Device device(Device d) const;
  std::vector<Value> take_operands() { return std::move(operands_); }

 private:
  Tensor meta_of(const Tensor& t);
  const char* op_;
  std::vector<Value> operands_;
  std::vector<std::pair<const void*, Storage>> storages_;
  AutoDispatchBelowTracer below_tracer_;  // the meta calls are not traced
};

// Eager fallback of one call: CPU values of the arguments, and the write-back of the mutated ones.
class TCORE_API Fallback {
 public:
  explicit Fallback(const char* op);
  ~Fallback();
  Fallback(const Fallback&) = delete;
  Fallback& operator=(const Fallback&) = delete;
  Tensor eager(const Tensor& t) { return is_lazy(t) ? to_eager(t) : t; }
  std::optional<Tensor> eager(const std::optional<Tensor>& t) {
    return t ? std::optional<Tensor>(eager(*t)) : std::nullopt;
  }
  std::vector<Tensor> eager(ArrayRef<Tensor> ts);
  std::vector<std::optional<Tensor>> eager(ArrayRef<std::optional<Tensor>> ts);
  Tensor eager_mut(const Tensor& t);  // a CPU copy, written back by commit()
  std::vector<Tensor> eager_mut(ArrayRef<Tensor> ts);
  std::optional<Device> device(const std::optional<Device>& d) const;
  Device device(Device d) const;
  void commit();
  // Outputs: a mutated argument's CPU copy is that argument; other tensors become lazy.
  Tensor output(const Tensor& t) const;
  std::optional<Tensor> output(const std::optional<Tensor>& t) const { return t ? std::optional<Tensor>(output(*t)) : t; }
  std::vector<Tensor> output(const std::vector<Tensor>& ts) const;
  template <typename... Ts>
  std::tuple<Ts...> output(const std::tuple<Ts...>& t) const {
    return std::apply([this](const auto&... x) { return std::tuple<Ts...>(output(x)...); }, t);
  }
  template <typename T, typename = std::enable_if_t<!std::is_same_v<T, Tensor>>>
  T output(const T& v) const {
    return v;
  }

 private:
  const char* op_;
  std::vector<std::pair<Tensor, Tensor>> mutated_;  // (lazy argument, its CPU copy)
  AutoDispatchBelowTracer below_tracer_;
};

// Shapes of a Meta function's outputs, in order.
TCORE_API void add_shapes(std::vector<Shape>& out, const Tensor& t);
inline void add_shapes(std::vector<Shape>& out, const std::vector<Tensor>& ts) {
  for (const auto& t : ts) add_shapes(out, t);
}
template <typename... Ts>
void add_shapes(std::vector<Shape>& out, const std::tuple<Ts...>& t) {
  std::apply([&](const auto&... x) { (add_shapes(out, x), ...); }, t);
}
template <typename T>
std::vector<Shape> shapes_of(const T& meta_result) {
  std::vector<Shape> out;
  add_shapes(out, meta_result);
  return out;
}

// A functional operator's lazy outputs, shaped like its Meta function's.
TCORE_API Tensor outputs_from(const std::shared_ptr<Node>& node, const Tensor& meta, int& next);
inline std::vector<Tensor> outputs_from(const std::shared_ptr<Node>& node, const std::vector<Tensor>& meta, int& next) {
  std::vector<Tensor> out;
  for (const auto& m : meta) out.push_back(outputs_from(node, m, next));
  return out;
}
template <typename... Ts>
std::tuple<Ts...> outputs_from(const std::shared_ptr<Node>& node, const std::tuple<Ts...>& meta, int& next) {
  // braced: the elements are made left to right
  return std::apply([&](const auto&... m) { return std::tuple<Ts...>{outputs_from(node, m, next)...}; }, meta);
}
template <typename T>
T outputs(const std::shared_ptr<Node>& node, const T& meta) {
  int next = 0;
  return outputs_from(node, meta, next);
}

// For Node::run: an operator's results as the node's outputs.
inline void add_results(std::vector<Tensor>& out, const Tensor& t) { out.push_back(t); }
inline void add_results(std::vector<Tensor>& out, const std::vector<Tensor>& ts) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <typename... Ts>
void add_results(std::vector<Tensor>& out, const std::tuple<Ts...>& t) {
  std::apply([&](const auto&... x) { (add_results(out, x), ...); }, t);
}
template <typename T>
std::vector<Tensor> results(const T& r) {
  std::vector<Tensor> out;
  add_results(out, r);
  return out;
}
// An operand the operator writes: its buffer when the program handed it over, else a copy.
TCORE_API Tensor writable(Tensor& t);
// An out= argument for the interpreter: a fresh CPU tensor of the output's shape and dtype.
TCORE_API Tensor fresh(const Shape& shape);
inline std::optional<Tensor> optional_operand(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}
inline std::vector<Tensor> operand_list(const std::vector<Tensor>& in, size_t first, size_t n) {
  return std::vector<Tensor>(in.begin() + first, in.begin() + first + n);
}
// Lazy devices become the CPU for the interpreter.
inline Device eager_device(Device d) { return d.is_lazy() ? Device(DeviceType::CPU) : d; }
inline std::optional<Device> eager_device(const std::optional<Device>& d) {
  return d ? std::optional<Device>(eager_device(*d)) : d;
}

// ------------------------------------------------------------------ attribute hashing
inline uint64_t hash_combine(uint64_t h, uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
inline uint64_t hash_bytes(const void* p, size_t n) {  // FNV-1a
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ULL;
  return h;
}
inline uint64_t hash_of(std::string_view s) { return hash_bytes(s.data(), s.size()); }
inline uint64_t hash_of(const char* s) { return hash_of(std::string_view(s)); }
inline uint64_t hash_of(const std::string& s) { return hash_of(std::string_view(s)); }
inline uint64_t hash_of(bool v) { return v ? 0x51ed27ULL : 0x2f3a91ULL; }
inline uint64_t hash_of(int64_t v) { return hash_bytes(&v, sizeof v); }
inline uint64_t hash_of(double v) { return hash_bytes(&v, sizeof v); }
inline uint64_t hash_of(ScalarType v) { return 0x100 + static_cast<uint64_t>(v); }
inline uint64_t hash_of(Layout v) { return 0x200 + static_cast<uint64_t>(v); }
inline uint64_t hash_of(MemoryFormat v) { return 0x300 + static_cast<uint64_t>(v); }
inline uint64_t hash_of(Device v) { return 0x400 + static_cast<uint64_t>(v.type) * 1000 + static_cast<uint64_t>(v.index + 1); }
TCORE_API uint64_t hash_of(const Scalar& s);
template <typename T>
uint64_t hash_of(const std::optional<T>& v);
template <typename T>
uint64_t hash_of(const std::vector<T>& v);
template <typename T>
uint64_t hash_of(const std::optional<T>& v) {
  return v ? hash_combine(0x7a11, hash_of(*v)) : 0x0b5e;
}
template <typename T>
uint64_t hash_of(const std::vector<T>& v) {
  uint64_t h = hash_of(static_cast<int64_t>(v.size()));
  for (const auto& x : v) h = hash_combine(h, hash_of(x));
  return h;
}
template <size_t N>
uint64_t hash_of(const std::array<bool, N>& v) {
  uint64_t h = 0xa77a;
  for (bool x : v) h = hash_combine(h, hash_of(x));
  return h;
}

}  // namespace tcore::lazy
