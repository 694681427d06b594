// The lazy tensor runtime: lazy storages, reading and writing their values, and the graph
// executor (structural hash, compiled programs, interpreter). tcore/lazy/Lazy.h says how.
#include "tcore/lazy/Lazy.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>

#include <tcore/ops/clone.h>
#include <tcore/ops/contiguous.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/reshape.h>

#include "tcore/core/Dispatch.h"
#include "tcore/core/Macros.h"

namespace tcore::lazy {
namespace {

// The data of a lazy StorageImpl: its contents, in row-major order, are `value` (null until
// first written: uninitialized).
struct LazyStorage {
  Value value;
  int64_t numel;
  ScalarType dtype;
  uint64_t serial;  // creation order: sync() takes its roots in this order (a stable graph hash)
};

std::mutex& registry_mutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::set<LazyStorage*>& live() {  // every lazy storage, for sync()
  static auto* s = new std::set<LazyStorage*>();
  return *s;
}

std::mutex metrics_mutex;
Metrics counters;

std::atomic<uint64_t> next_serial{0};

Storage new_storage(int64_t numel, ScalarType dtype, Value value) {
  auto* ls = new LazyStorage{std::move(value), numel, dtype, next_serial.fetch_add(1)};
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    live().insert(ls);
  }
  auto deleter = [](void* p) {
    auto* ls = static_cast<LazyStorage*>(p);
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      live().erase(ls);
    }
    delete ls;
  };
  const size_t nbytes = static_cast<size_t>(numel) * static_cast<size_t>(element_size(dtype));
  return Storage(std::make_shared<StorageImpl>(ls, nbytes, Device(DeviceType::Lazy), deleter));
}

LazyStorage& storage_of(const Tensor& t) { return *static_cast<LazyStorage*>(t.storage().data()); }

// ------------------------------------------------------------------ built-in nodes
struct DataNode final : Node {
  explicit DataNode(Tensor t) : Node({}, {Shape{t.sizes().vec(), t.dtype()}}), value(std::move(t)) {}
  const char* op() const override { return "device_data"; }
  uint64_t attr_hash() const override { return hash_of("device_data"); }
  std::vector<Tensor> run(std::vector<Tensor>&) const override { return {value}; }
  const Tensor* data() const override { return &value; }
  Tensor value;
};

struct EmptyNode final : Node {
  explicit EmptyNode(Shape s) : Node({}, {std::move(s)}) {}
  const char* op() const override { return "empty"; }
  uint64_t attr_hash() const override { return hash_of("empty"); }
  std::vector<Tensor> run(std::vector<Tensor>&) const override { return {fresh(shapes[0])}; }
};

Tensor flat(const Tensor& t) {  // t's elements in row-major order, 1-d
  Tensor c = t.is_contiguous() ? t : tcore::contiguous(t);
  return make_view(c, {c.numel()}, {1}, c.storage_offset());
}

struct ReshapeNode final : Node {
  ReshapeNode(Value v, Shape s) : Node({std::move(v)}, {std::move(s)}) {}
  const char* op() const override { return "reshape"; }
  uint64_t attr_hash() const override { return hash_of("reshape"); }
  std::vector<Tensor> run(std::vector<Tensor>& in) const override {
    return {tcore::reshape(in[0], shapes[0].sizes)};
  }
};

// A view's contents, from its storage's.
struct AsStridedNode final : Node {
  AsStridedNode(Value v, Shape s, std::vector<int64_t> strides, int64_t offset)
      : Node({std::move(v)}, {std::move(s)}), strides(std::move(strides)), offset(offset) {}
  const char* op() const override { return "as_strided"; }
  uint64_t attr_hash() const override {
    return hash_combine(hash_combine(hash_of("as_strided"), hash_of(strides)), hash_of(offset));
  }
  std::vector<Tensor> run(std::vector<Tensor>& in) const override {
    Tensor f = flat(in[0]);
    return {make_view(f, shapes[0].sizes, strides, f.storage_offset() + offset)};
  }
  std::vector<int64_t> strides;
  int64_t offset;
};

// A storage's contents after a write of `src` through a view.
struct ScatterNode final : Node {
  ScatterNode(Value base, Value src, Shape storage, std::vector<int64_t> sizes, std::vector<int64_t> strides,
              int64_t offset)
      : Node({std::move(base), std::move(src)}, {std::move(storage)}),
        sizes(std::move(sizes)), strides(std::move(strides)), offset(offset) {}
  const char* op() const override { return "as_strided_scatter"; }
  uint64_t attr_hash() const override {
    return hash_combine(hash_combine(hash_combine(hash_of("as_strided_scatter"), hash_of(sizes)), hash_of(strides)),
                        hash_of(offset));
  }
  std::vector<Tensor> run(std::vector<Tensor>& in) const override {
    Tensor base = in[0].is_contiguous() ? writable(in[0]) : tcore::contiguous(in[0]);
    Tensor f = flat(base);
    tcore::copy_(make_view(f, sizes, strides, f.storage_offset() + offset), in[1], false);
    return {f};
  }
  std::vector<int64_t> sizes, strides;
  int64_t offset;
};

bool covers_storage(const Tensor& t, const LazyStorage& s) {
  return t.storage_offset() == 0 && t.is_contiguous() && t.numel() == s.numel;
}

Value storage_value(LazyStorage& s) {
  if (!s.value.node) s.value = Value{std::make_shared<EmptyNode>(Shape{{s.numel}, s.dtype}), 0};
  return s.value;
}

const Shape& shape_of(const Value& v) { return v.node->shapes[static_cast<size_t>(v.index)]; }

// ------------------------------------------------------------------ the graph executor
struct Program {
  struct Step {
    std::vector<int> operands;       // value slots (-1: absent)
    std::vector<bool> handed_over;   // the operand's last use (and its only one in this step)
    int first_output;                // the slot of output 0
  };
  std::vector<Step> steps;  // one per node, in the graph's order
  std::vector<int> roots;   // the slot of each root
  int num_slots = 0;
};

struct Graph {
  std::vector<Node*> order;  // operands first
  std::vector<std::shared_ptr<Node>> keep;
  std::unordered_map<const Node*, int> position;
  uint64_t hash = 0;
};

Graph collect(const std::vector<Value>& roots) {
  Graph g;
  std::vector<std::pair<Node*, size_t>> stack;
  auto visit = [&](const std::shared_ptr<Node>& n) {
    if (n && !g.position.count(n.get())) {
      g.position[n.get()] = -1;  // on the stack
      g.keep.push_back(n);
      stack.emplace_back(n.get(), 0);
    }
  };
  for (const auto& r : roots) {
    visit(r.node);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->operands.size()) {
        visit(node->operands[next++].node);
        continue;
      }
      g.position[node] = static_cast<int>(g.order.size());
      g.order.push_back(node);
      stack.pop_back();
    }
  }
  uint64_t h = hash_of(static_cast<int64_t>(g.order.size()));
  for (Node* n : g.order) {
    uint64_t nh = n->attr_hash();
    for (const auto& s : n->shapes) nh = hash_combine(hash_combine(nh, hash_of(s.sizes)), hash_of(s.dtype));
    for (const auto& o : n->operands) {
      nh = hash_combine(nh, o.node ? hash_of(static_cast<int64_t>(g.position[o.node.get()])) : 0x0ddULL);
      nh = hash_combine(nh, hash_of(static_cast<int64_t>(o.index)));
    }
    h = hash_combine(h, nh);
  }
  for (const auto& r : roots) {
    h = hash_combine(h, hash_of(static_cast<int64_t>(g.position[r.node.get()])));
    h = hash_combine(h, hash_of(static_cast<int64_t>(r.index)));
  }
  g.hash = h;
  return g;
}

std::shared_ptr<Program> compile(const Graph& g, const std::vector<Value>& roots) {
  auto p = std::make_shared<Program>();
  std::vector<int> first_slot(g.order.size());
  int slots = 0;
  for (size_t i = 0; i < g.order.size(); ++i) {
    first_slot[i] = slots;
    slots += static_cast<int>(g.order[i]->shapes.size());
  }
  auto slot_of = [&](const Value& v) {
    return v.node ? first_slot[static_cast<size_t>(g.position.at(v.node.get()))] + v.index : -1;
  };
  std::vector<int> last_use(static_cast<size_t>(slots), -1);
  for (size_t i = 0; i < g.order.size(); ++i) {
    Program::Step step;
    step.first_output = first_slot[i];
    for (const auto& o : g.order[i]->operands) {
      step.operands.push_back(slot_of(o));
      if (o.node) last_use[static_cast<size_t>(slot_of(o))] = static_cast<int>(i);
    }
    p->steps.push_back(std::move(step));
  }
  for (const auto& r : roots) {
    p->roots.push_back(slot_of(r));
    last_use[static_cast<size_t>(slot_of(r))] = static_cast<int>(g.order.size());  // kept
  }
  for (size_t i = 0; i < p->steps.size(); ++i) {
    auto& step = p->steps[i];
    for (int s : step.operands) {
      const bool once = std::count(step.operands.begin(), step.operands.end(), s) == 1;
      step.handed_over.push_back(s >= 0 && once && last_use[static_cast<size_t>(s)] == static_cast<int>(i));
    }
  }
  p->num_slots = slots;
  return p;
}

std::mutex programs_mutex;
std::unordered_map<uint64_t, std::shared_ptr<Program>> programs;
constexpr size_t kMaxPrograms = 4096;

// The guards the interpreter runs under: plain CPU kernels, nothing recorded.
struct Eager {
  NoGradGuard no_grad;
  AutoDispatchBelowAutograd below_autograd;
  AutoDispatchBelowInplaceOrView below_view;
  AutoDispatchBelowTracer below_tracer;
  AutoDispatchBelowFunctionalize below_functionalize;
};

std::vector<Tensor> execute(const std::vector<Value>& roots) {
  Graph g = collect(roots);
  std::shared_ptr<Program> program;
  {
    std::lock_guard<std::mutex> lock(programs_mutex);
    auto it = programs.find(g.hash);
    if (it != programs.end()) program = it->second;
  }
  const bool hit = program != nullptr;
  if (!hit) {
    program = compile(g, roots);
    std::lock_guard<std::mutex> lock(programs_mutex);
    if (programs.size() >= kMaxPrograms) programs.clear();
    programs.emplace(g.hash, program);
  }
  Eager eager;
  std::vector<Tensor> slots(static_cast<size_t>(program->num_slots));
  int64_t executed = 0;
  for (size_t i = 0; i < g.order.size(); ++i) {
    const Node* node = g.order[i];
    const auto& step = program->steps[i];
    std::vector<Tensor> in;
    in.reserve(step.operands.size());
    for (size_t k = 0; k < step.operands.size(); ++k) {
      const int s = step.operands[k];
      if (s < 0) {
        in.emplace_back();
      } else if (step.handed_over[k]) {
        in.push_back(std::move(slots[static_cast<size_t>(s)]));
      } else {
        in.push_back(slots[static_cast<size_t>(s)]);
      }
    }
    std::vector<Tensor> out = node->run(in);
    TCORE_CHECK(out.size() == node->shapes.size(), "lazy: ", node->op(), " gave ", out.size(), " outputs for ",
                node->shapes.size());
    for (size_t k = 0; k < out.size(); ++k) {  // what its Meta function declared, or an internal error
      const Shape& want = node->shapes[k];
      TCORE_CHECK(!out[k].defined() || (out[k].dtype() == want.dtype && out[k].sizes().vec() == want.sizes), "lazy: ",
                  node->op(), " output ", k, " is ", out[k].dtype(), shape_str(out[k].sizes()),
                  " where its Meta function declared ", want.dtype, shape_str(want.sizes),
                  " (a bug in that Meta function)");
    }
    for (size_t k = 0; k < out.size(); ++k) slots[static_cast<size_t>(step.first_output) + k] = std::move(out[k]);
    if (node->data() == nullptr) ++executed;
  }
  std::vector<Tensor> results;
  for (int s : program->roots) results.push_back(slots[static_cast<size_t>(s)]);
  std::lock_guard<std::mutex> lock(metrics_mutex);
  counters.syncs += 1;
  counters.nodes_executed += executed;
  (hit ? counters.cache_hits : counters.graphs_compiled) += 1;
  return results;
}

std::vector<LazyStorage*> pending_storages(const std::vector<Tensor>& tensors) {
  std::vector<LazyStorage*> out;
  auto pending = [](LazyStorage* s) { return s->value.node && s->value.node->data() == nullptr; };
  if (tensors.empty()) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    for (LazyStorage* s : live())
      if (pending(s)) out.push_back(s);
    std::sort(out.begin(), out.end(), [](LazyStorage* a, LazyStorage* b) { return a->serial < b->serial; });
    return out;
  }
  for (const auto& t : tensors) {
    if (!is_lazy(t)) continue;
    LazyStorage* s = &storage_of(t);
    if (pending(s) && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

}  // namespace

// ------------------------------------------------------------------ tensors
bool is_lazy(const Tensor& t) { return t.defined() && t.device().is_lazy(); }

Tensor empty(IntArrayRef sizes, ScalarType dtype) {
  const int64_t numel = numel_of(sizes);
  return Tensor(std::make_shared<TensorImpl>(new_storage(numel, dtype, Value{}), dtype, sizes.vec(),
                                             contiguous_strides(sizes), 0));
}

Tensor make_tensor(Value v, const Shape& shape) {
  const int64_t numel = numel_of(shape.sizes);
  return Tensor(std::make_shared<TensorImpl>(new_storage(numel, shape.dtype, std::move(v)), shape.dtype, shape.sizes,
                                             contiguous_strides(shape.sizes), 0));
}

Value data_value(const Tensor& cpu) { return Value{std::make_shared<DataNode>(cpu), 0}; }

Value value_of(const Tensor& t, const char* op) {
  if (!is_lazy(t)) {
    if (t.dim() != 0 || !t.device().is_cpu()) {
      throw Error(detail::str_cat("Expected all tensors to be on the same device, but found at least two devices, lazy and ",
                                  t.device().str(), "! (", op, ": a ", t.device().str(), " tensor of size ",
                                  shape_str(t.sizes()), " among lazy ones)"));
    }
    Tensor c;
    {
      Eager eager;
      c = tcore::clone(t, MemoryFormat::Contiguous);
    }
    c.impl()->is_wrapped_number = t.impl()->is_wrapped_number;  // promotes as the number it is
    return data_value(c);
  }
  LazyStorage& s = storage_of(t);
  Value v = storage_value(s);
  const Shape& vs = shape_of(v);
  if (covers_storage(t, s)) {
    if (vs.sizes == t.sizes().vec()) return v;
    return Value{std::make_shared<ReshapeNode>(v, Shape{t.sizes().vec(), t.dtype()}), 0};
  }
  return Value{std::make_shared<AsStridedNode>(v, Shape{t.sizes().vec(), t.dtype()}, t.strides().vec(),
                                               t.storage_offset()), 0};
}

void write(const Tensor& t, Value v, const Shape& shape, const char* op) {
  TCORE_CHECK(is_lazy(t), op, ": writes a ", t.device().str(), " tensor with a lazy result");
  LazyStorage& s = storage_of(t);
  if (shape.sizes != t.sizes().vec()) {  // an out= argument resized
    TCORE_CHECK(covers_storage(t, s) || t.numel() == 0, op,
                ": cannot resize a lazy out= tensor that is a view of another tensor");
    t.impl()->set_storage(new_storage(numel_of(shape.sizes), shape.dtype, std::move(v)));
    t.impl()->set_sizes_and_strides(shape.sizes, contiguous_strides(shape.sizes), 0);
  } else if (covers_storage(t, s)) {
    s.value = std::move(v);
  } else {
    s.value = Value{std::make_shared<ScatterNode>(storage_value(s), std::move(v), Shape{{s.numel}, s.dtype},
                                                  t.sizes().vec(), t.strides().vec(), t.storage_offset()), 0};
  }
  t.bump_version();
}

void resize(const Tensor& t, IntArrayRef sizes) {
  TCORE_CHECK(is_lazy(t), "lazy::resize: not a lazy tensor");
  LazyStorage& s = storage_of(t);
  const int64_t needed = numel_of(sizes) + t.storage_offset();
  if (needed > s.numel) {
    t.impl()->set_storage(new_storage(numel_of(sizes), t.dtype(), Value{}));
    t.impl()->set_sizes_and_strides(sizes.vec(), contiguous_strides(sizes), 0);
  } else {
    t.impl()->set_sizes_and_strides(sizes.vec(), contiguous_strides(sizes), t.storage_offset());
  }
}

Tensor to_eager(const Tensor& t) {
  TCORE_CHECK(is_lazy(t), "to_eager: not a lazy tensor");
  sync({t});
  LazyStorage& s = storage_of(t);
  Value v = storage_value(s);
  Tensor data;
  if (v.node->data() != nullptr) {
    data = *v.node->data();
  } else {  // uninitialized: a fresh buffer stands for it
    data = fresh(shape_of(v));
    s.value = data_value(data);
  }
  if (covers_storage(t, s)) {
    if (data.sizes().vec() == t.sizes().vec()) return data;
    Eager eager;
    return tcore::reshape(data, t.sizes());
  }
  Eager eager;
  Tensor f = flat(data);
  return make_view(f, t.sizes().vec(), t.strides().vec(), f.storage_offset() + t.storage_offset());
}

Tensor to_cpu_copy(const Tensor& t) {
  Tensor values = to_eager(t);
  Eager eager;
  return tcore::clone(values, MemoryFormat::Contiguous);
}

Tensor from_eager(const Tensor& cpu) {
  return make_tensor(data_value(cpu), Shape{cpu.sizes().vec(), cpu.dtype()});
}

void sync(const std::vector<Tensor>& tensors) {
  std::vector<LazyStorage*> todo = pending_storages(tensors);
  if (todo.empty()) return;
  std::vector<Value> roots;
  for (LazyStorage* s : todo) roots.push_back(s->value);
  std::vector<Tensor> results = execute(roots);
  for (size_t i = 0; i < todo.size(); ++i) todo[i]->value = data_value(results[i]);
}

std::string ir_text(const std::vector<Tensor>& tensors) {
  std::vector<Value> roots;
  for (const auto& t : tensors)
    if (is_lazy(t)) roots.push_back(storage_value(storage_of(t)));
  Graph g = collect(roots);
  std::ostringstream os;
  for (size_t i = 0; i < g.order.size(); ++i) {
    const Node* n = g.order[i];
    os << "%" << i << " = " << n->op() << "(";
    for (size_t k = 0; k < n->operands.size(); ++k) {
      const Value& o = n->operands[k];
      if (k) os << ", ";
      if (!o.node) {
        os << "None";
      } else {
        os << "%" << g.position[o.node.get()];
        if (o.node->shapes.size() > 1) os << "." << o.index;
      }
    }
    os << ") :";
    for (const auto& s : n->shapes) os << " " << s.dtype << shape_str(s.sizes);
    os << "\n";
  }
  return os.str();
}

Metrics metrics() {
  std::lock_guard<std::mutex> lock(metrics_mutex);
  return counters;
}
void reset_metrics() {
  std::lock_guard<std::mutex> lock(metrics_mutex);
  counters = Metrics{};
}
void clear_compiled() {
  std::lock_guard<std::mutex> lock(programs_mutex);
  programs.clear();
}

void count_node() {
  std::lock_guard<std::mutex> lock(metrics_mutex);
  counters.nodes_recorded += 1;
}
void count_fallback(const char* op) {
  std::lock_guard<std::mutex> lock(metrics_mutex);
  counters.eager_fallbacks[op] += 1;
}

uint64_t hash_of(const Scalar& s) {
  if (s.is_bool()) return hash_combine(1, hash_of(s.to<bool>()));
  if (s.is_integral()) return hash_combine(2, hash_of(s.to_long()));
  return hash_combine(3, hash_of(s.to_double()));
}

Tensor writable(Tensor& t) {
  if (t.impl_ptr().use_count() == 1 && t.storage().use_count() == 1) {
    std::lock_guard<std::mutex> lock(metrics_mutex);
    counters.buffers_reused += 1;
    return t;
  }
  return tcore::clone(t, MemoryFormat::Contiguous);
}

Tensor fresh(const Shape& shape) { return empty_cpu(shape.sizes, shape.dtype); }

void add_shapes(std::vector<Shape>& out, const Tensor& t) {
  out.push_back(Shape{t.defined() ? t.sizes().vec() : std::vector<int64_t>{}, t.defined() ? t.dtype() : ScalarType::Float});
}

Tensor outputs_from(const std::shared_ptr<Node>& node, const Tensor& meta, int& next) {
  const int index = next++;
  return make_tensor(Value{node, index}, node->shapes[static_cast<size_t>(index)]);
}

// ------------------------------------------------------------------ Recorder
Recorder::Recorder(const char* op) : op_(op) { count_node(); }
Recorder::~Recorder() = default;

Tensor Recorder::meta_of(const Tensor& t) {
  const void* key = t.storage().defined() ? t.storage().data() : nullptr;
  Storage storage;
  for (const auto& [k, s] : storages_)
    if (k == key && is_lazy(t)) storage = s;
  if (!storage.defined()) {
    storage = Storage(std::make_shared<StorageImpl>(nullptr, t.storage().defined() ? t.storage().nbytes() : 0,
                                                    Device(DeviceType::Meta), nullptr, /*resizable=*/true));
    if (is_lazy(t)) storages_.emplace_back(key, storage);
  }
  auto impl = std::make_shared<TensorImpl>(storage, t.dtype(), t.sizes().vec(), t.strides().vec(), t.storage_offset());
  impl->is_wrapped_number = t.impl()->is_wrapped_number;
  return Tensor(std::move(impl));
}

Tensor Recorder::meta(const Tensor& t) {
  if (!t.defined()) {
    operands_.emplace_back();
    return t;
  }
  operands_.push_back(value_of(t, op_));
  return meta_of(t);
}
std::optional<Tensor> Recorder::meta(const std::optional<Tensor>& t) {
  if (!t || !t->defined()) {
    operands_.emplace_back();
    return t;
  }
  return meta(*t);
}
std::vector<Tensor> Recorder::meta(ArrayRef<Tensor> ts) {
  std::vector<Tensor> out;
  for (const auto& t : ts) out.push_back(meta(t));
  return out;
}
Tensor Recorder::meta_out(const Tensor& t) { return meta_of(t); }
std::optional<Device> Recorder::device(const std::optional<Device>& d) const {
  return d ? std::optional<Device>(device(*d)) : d;
}
Device Recorder::device(Device d) const { return d.is_lazy() ? Device(DeviceType::Meta) : d; }

// ------------------------------------------------------------------ Fallback
Fallback::Fallback(const char* op) : op_(op) { count_fallback(op); }
Fallback::~Fallback() = default;

std::vector<Tensor> Fallback::eager(ArrayRef<Tensor> ts) {
  std::vector<Tensor> out;
  for (const auto& t : ts) out.push_back(eager(t));
  return out;
}
std::vector<std::optional<Tensor>> Fallback::eager(ArrayRef<std::optional<Tensor>> ts) {
  std::vector<std::optional<Tensor>> out;
  for (const auto& t : ts) out.push_back(eager(t));
  return out;
}
Tensor Fallback::eager_mut(const Tensor& t) {
  if (!is_lazy(t)) return t;
  Tensor cpu;
  {
    Eager eager;
    cpu = tcore::clone(to_eager(t), MemoryFormat::Contiguous);
  }
  mutated_.emplace_back(t, cpu);
  return cpu;
}
std::vector<Tensor> Fallback::eager_mut(ArrayRef<Tensor> ts) {
  std::vector<Tensor> out;
  for (const auto& t : ts) out.push_back(eager_mut(t));
  return out;
}
std::optional<Device> Fallback::device(const std::optional<Device>& d) const { return eager_device(d); }
Device Fallback::device(Device d) const { return eager_device(d); }

void Fallback::commit() {
  for (auto& [lz, cpu] : mutated_) write(lz, data_value(cpu), Shape{cpu.sizes().vec(), cpu.dtype()}, op_);
}

Tensor Fallback::output(const Tensor& t) const {
  if (!t.defined() || is_lazy(t)) return t;
  for (const auto& [lz, cpu] : mutated_)
    if (cpu.is_same(t)) return lz;
  return from_eager(t);
}
std::vector<Tensor> Fallback::output(const std::vector<Tensor>& ts) const {
  std::vector<Tensor> out;
  for (const auto& t : ts) out.push_back(output(t));
  return out;
}

}  // namespace tcore::lazy
