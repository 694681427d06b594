#include "tcore/jit/ivalue.h"

#include "tcore/core/Dispatch.h"

#include <mutex>
#include <sstream>

namespace tcore::jit {

const char* IValue::kind() const {
  static const char* names[] = {"None", "Tensor", "int", "float", "bool", "str", "list"};
  return names[value.index()];
}

std::string IValue::repr() const {
  std::ostringstream ss;
  std::visit([&](const auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::monostate>) ss << "None";
    else if constexpr (std::is_same_v<T, Tensor>) ss << "Tensor" << shape_str(v.sizes());
    else if constexpr (std::is_same_v<T, bool>) ss << (v ? "True" : "False");
    else if constexpr (std::is_same_v<T, std::string>) ss << '"' << v << '"';
    else if constexpr (std::is_same_v<T, List>) {
      ss << "[";
      for (size_t i = 0; i < v.size(); ++i) ss << (i ? ", " : "") << v[i].repr();
      ss << "]";
    } else ss << v;
  }, value);
  return ss.str();
}

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, BoxedOperator> ops;
};
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

[[noreturn]] void mismatch(const IValue& v, const char* expected, const char* arg) {
  throw TypeError(detail::str_cat("argument '", arg, "' must be ", expected, ", not ", v.kind()));
}
}  // namespace

bool register_boxed(BoxedOperator op) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::string key = op.name;
  r.ops.emplace(std::move(key), std::move(op));
  return true;
}

const BoxedOperator* find_boxed(const std::string& name) {
  const std::string key = name.rfind("tcore::", 0) == 0 ? name.substr(7) : name;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.ops.find(key);
  return it == r.ops.end() ? nullptr : &it->second;
}

std::vector<const BoxedOperator*> boxed_operators() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const BoxedOperator*> out;
  for (auto& kv : r.ops) out.push_back(&kv.second);
  return out;
}

Stack call_boxed(const std::string& name, Stack args) {
  const BoxedOperator* op = find_boxed(name);
  TCORE_CHECK(op != nullptr || !is_unselected_operator(name), "operator 'tcore::", name,
              "' is not built in this selective build");
  TCORE_CHECK(op != nullptr, "unknown operator 'tcore::", name, "'");
  size_t required = 0;
  for (size_t i = 0; i < op->arguments.size(); ++i)
    if (!op->arguments[i].has_default) required = i + 1;
  TCORE_CHECK_TYPE(args.size() >= required && args.size() <= op->arguments.size(), op->name, "() takes ", required,
                   " to ", op->arguments.size(), " arguments but ",
                   args.size(), " were given (schema: ", op->schema, ")");
  Stack stack = std::move(args);
  const size_t given = stack.size();
  op->kernel(stack, given);
  return stack;
}

Tensor to_tensor(const IValue& v, const char* arg) {
  if (auto* t = std::get_if<Tensor>(&v.value)) return *t;
  mismatch(v, "Tensor", arg);
}
std::optional<Tensor> to_optional_tensor(const IValue& v, const char* arg) {
  if (v.is_none()) return std::nullopt;
  return to_tensor(v, arg);
}
int64_t to_int(const IValue& v, const char* arg) {
  if (auto* i = std::get_if<int64_t>(&v.value)) return *i;
  mismatch(v, "int", arg);
}
double to_double(const IValue& v, const char* arg) {
  if (auto* d = std::get_if<double>(&v.value)) return *d;
  if (auto* i = std::get_if<int64_t>(&v.value)) return static_cast<double>(*i);
  mismatch(v, "float", arg);
}
bool to_bool(const IValue& v, const char* arg) {
  if (auto* b = std::get_if<bool>(&v.value)) return *b;
  mismatch(v, "bool", arg);
}
Scalar to_scalar(const IValue& v, const char* arg) {
  if (auto* b = std::get_if<bool>(&v.value)) return Scalar(*b);
  if (auto* i = std::get_if<int64_t>(&v.value)) return Scalar(*i);
  if (auto* d = std::get_if<double>(&v.value)) return Scalar(*d);
  mismatch(v, "a number", arg);
}
std::vector<int64_t> to_int_list(const IValue& v, const char* arg) {
  if (auto* i = std::get_if<int64_t>(&v.value)) return {*i};
  if (auto* l = std::get_if<List>(&v.value)) {
    std::vector<int64_t> out;
    for (const auto& x : *l) out.push_back(to_int(x, arg));
    return out;
  }
  mismatch(v, "a list of ints", arg);
}
std::vector<bool> to_bool_list(const IValue& v, size_t n, const char* arg) {
  if (auto* l = std::get_if<List>(&v.value); l != nullptr && l->size() == n) {
    std::vector<bool> out;
    for (const auto& x : *l) out.push_back(to_bool(x, arg));
    return out;
  }
  mismatch(v, detail::str_cat("a list of ", n, " bools").c_str(), arg);
}
std::vector<Tensor> to_tensor_list(const IValue& v, const char* arg) {
  if (auto* l = std::get_if<List>(&v.value)) {
    std::vector<Tensor> out;
    for (const auto& x : *l) out.push_back(to_tensor(x, arg));
    return out;
  }
  mismatch(v, "a list of Tensors", arg);
}
std::vector<std::optional<Tensor>> to_optional_tensor_list(const IValue& v, const char* arg) {
  if (auto* l = std::get_if<List>(&v.value)) {
    std::vector<std::optional<Tensor>> out;
    for (const auto& x : *l) out.push_back(to_optional_tensor(x, arg));
    return out;
  }
  mismatch(v, "a list of Tensors or None", arg);
}
std::string to_string_value(const IValue& v, const char* arg) {
  if (auto* s = std::get_if<std::string>(&v.value)) return *s;
  mismatch(v, "str", arg);
}
ScalarType to_scalar_type(const IValue& v, const char* arg) {
  const int64_t i = to_int(v, arg);
  TCORE_CHECK_VALUE(i >= 0 && i < kNumScalarTypes, "argument '", arg, "': ", i, " is not a dtype");
  return static_cast<ScalarType>(i);
}
// Layout and MemoryFormat travel as ints: an int out of the enum's range is an error, never
// an enum value that does not exist (their last enumerators: Strided, ChannelsLast).
Layout to_layout(const IValue& v, const char* arg) {
  const int64_t i = to_int(v, arg);
  TCORE_CHECK_VALUE(i >= 0 && i <= static_cast<int64_t>(Layout::Strided), "argument '", arg, "': ", i,
                    " is not a layout");
  return static_cast<Layout>(i);
}
MemoryFormat to_memory_format(const IValue& v, const char* arg) {
  const int64_t i = to_int(v, arg);
  TCORE_CHECK_VALUE(i >= 0 && i <= static_cast<int64_t>(MemoryFormat::ChannelsLast), "argument '", arg, "': ", i,
                    " is not a memory format");
  return static_cast<MemoryFormat>(i);
}
Device to_device(const IValue& v, const char* arg) { return Device(to_string_value(v, arg)); }

Generator to_generator(const IValue& v, const char* arg) {
  (void)v;
  throw TypeError(std::string("argument '") + arg + "': boxed calls take no Generator object (pass None for the "
                  "default generator, or call the operator directly)");
}

}  // namespace tcore::jit
