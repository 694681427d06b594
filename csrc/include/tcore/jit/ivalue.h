#pragma once
// Boxed values and the boxed operator registry: what an interpreter calls operators
// through. Generated unboxing code (generated/jit/Unboxing_N.cpp) registers, for every
// operator, a function that takes its arguments off a stack of IValues (filling in the
// schema's defaults), calls the operator and pushes its results.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "tcore/core/OpDecl.h"

namespace tcore::jit {

struct IValue;
using List = std::vector<IValue>;
// Lists nest at most this deep: in the IR (a deeper list is a parse error at its '[') and
// from Python (a ValueError), so nothing recurses over a value without a bound.
constexpr int kMaxListDepth = 64;

// None, Tensor, int, float, bool, str, list. Scalar types, layouts and memory formats
// travel as ints, devices as strings, as in TorchScript.
struct TCORE_API IValue {
  using Payload = std::variant<std::monostate, Tensor, int64_t, double, bool, std::string, List>;
  Payload value;

  IValue() = default;
  IValue(Tensor t) : value(std::move(t)) {}
  IValue(int64_t v) : value(v) {}
  IValue(int v) : value(int64_t{v}) {}
  IValue(double v) : value(v) {}
  IValue(bool v) : value(v) {}
  IValue(std::string s) : value(std::move(s)) {}
  IValue(const char* s) : value(std::string(s)) {}
  IValue(List l) : value(std::move(l)) {}

  bool is_none() const { return std::holds_alternative<std::monostate>(value); }
  const char* kind() const;
  std::string repr() const;
};

using Stack = std::vector<IValue>;
// Takes the `given` arguments off the end of the stack and pushes the results.
using BoxedKernel = void (*)(Stack& stack, size_t given);

struct BoxedArgument {
  std::string name;
  std::string type;  // as in the schema
  bool has_default;
  bool kwarg_only;
  IValue default_value;  // the schema's default, boxed (enums as ints)
};

struct BoxedOperator {
  std::string name;    // "add.Tensor" (without the tcore:: namespace)
  std::string schema;  // the full schema string
  std::vector<BoxedArgument> arguments;
  size_t returns;
  BoxedKernel kernel;
};

// Registration (generated code) and lookup.
TCORE_API bool register_boxed(BoxedOperator op);
TCORE_API const BoxedOperator* find_boxed(const std::string& name);  // "add.Tensor" or "tcore::add.Tensor"
TCORE_API std::vector<const BoxedOperator*> boxed_operators();
// Calls an operator through its boxed kernel: arguments in schema order (trailing
// defaulted ones may be left out); returns the outputs.
TCORE_API Stack call_boxed(const std::string& name, Stack args);

// ----- conversions used by the generated unboxing code (TypeError on a mismatch)
TCORE_API Tensor to_tensor(const IValue& v, const char* arg);
TCORE_API std::optional<Tensor> to_optional_tensor(const IValue& v, const char* arg);
TCORE_API int64_t to_int(const IValue& v, const char* arg);
TCORE_API double to_double(const IValue& v, const char* arg);
TCORE_API bool to_bool(const IValue& v, const char* arg);
TCORE_API Scalar to_scalar(const IValue& v, const char* arg);
TCORE_API std::vector<int64_t> to_int_list(const IValue& v, const char* arg);
TCORE_API std::vector<Tensor> to_tensor_list(const IValue& v, const char* arg);
// bool[N] (output_mask): a list of exactly n bools
TCORE_API std::vector<bool> to_bool_list(const IValue& v, size_t n, const char* arg);
template <size_t N>
std::array<bool, N> to_bool_array(const IValue& v, const char* arg) {
  const std::vector<bool> got = to_bool_list(v, N, arg);
  std::array<bool, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = got[i];
  return out;
}
TCORE_API std::vector<std::optional<Tensor>> to_optional_tensor_list(const IValue& v, const char* arg);  // Tensor?[]
TCORE_API std::string to_string_value(const IValue& v, const char* arg);
TCORE_API ScalarType to_scalar_type(const IValue& v, const char* arg);
TCORE_API Layout to_layout(const IValue& v, const char* arg);
TCORE_API MemoryFormat to_memory_format(const IValue& v, const char* arg);
TCORE_API Device to_device(const IValue& v, const char* arg);
// A boxed call carries no Generator object: only None (the default generator) is accepted.
TCORE_API Generator to_generator(const IValue& v, const char* arg);

template <typename T, typename F>
std::optional<T> to_optional(const IValue& v, F convert, const char* arg) {
  if (v.is_none()) return std::nullopt;
  return convert(v, arg);
}

}  // namespace tcore::jit
