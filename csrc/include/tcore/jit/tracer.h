#pragma once
// Tracing: while on, every operator call lands first in its generated trace kernel
// (generated/jit/Trace_N.cpp, DispatchKey::Tracer), which records a node of the text
// IR and runs the operator below the tracer. Off, it costs one thread-local check.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tcore/core/Dispatch.h"

namespace tcore::jit::tracer {

TCORE_API void start(const std::vector<Tensor>& inputs);
// The graph text (tcore::jit::Graph::parse reads it); tracing is off afterwards.
TCORE_API std::string stop(const std::vector<Tensor>& outputs);
TCORE_API void abandon();  // after an exception in the traced function

// IR operands of the argument types operators take.
TCORE_API std::string operand(const Tensor& t);
TCORE_API std::string operand(const std::optional<Tensor>& t);
TCORE_API std::string operand(ArrayRef<Tensor> ts);
TCORE_API std::string operand(ArrayRef<std::optional<Tensor>> ts);  // Tensor?[] (index)
TCORE_API std::string operand(int64_t v);
TCORE_API std::string operand(double v);
TCORE_API std::string operand(bool v);
TCORE_API std::string operand(const Scalar& v);
TCORE_API std::string operand(IntArrayRef v);
template <size_t N>
std::string operand(const std::array<bool, N>& v) {  // bool[N] (output_mask): [True, False]
  std::string s = "[";
  for (size_t i = 0; i < N; ++i) s += (i ? ", " : "") + operand(v[i]);
  return s + "]";
}
TCORE_API std::string operand(std::string_view v);
TCORE_API std::string operand(ScalarType v);
TCORE_API std::string operand(Layout v);
TCORE_API std::string operand(MemoryFormat v);
TCORE_API std::string operand(Device v);
TCORE_API std::string operand(const Generator& g);
template <typename T>
std::string operand(const std::optional<T>& v) {
  return v ? operand(*v) : std::string("None");
}

TCORE_API void record(const char* op, const std::vector<std::string>& args, const std::vector<Tensor>& outputs);

}  // namespace tcore::jit::tracer
