#include "tcore/jit/tracer.h"

#include <cmath>
#include <cstdio>
#include <locale>
#include <map>
#include <memory>
#include <sstream>

namespace tcore::jit::tracer {
namespace {

struct State {
  std::map<const TensorImpl*, std::string> names;
  std::vector<Tensor> keep_alive;  // so that no traced TensorImpl address is reused
  std::vector<std::string> inputs, lines;
  int next = 0;
};
thread_local std::unique_ptr<State> state;

State& current() {
  TCORE_CHECK(state != nullptr, "tracer: no trace in progress");
  return *state;
}

std::string name_of(const Tensor& t) {
  State& s = current();
  auto it = s.names.find(t.impl());
  TCORE_CHECK(it != s.names.end(), "tracer: a tensor that is neither an input of the trace nor the result of a traced "
                                   "operator was used (of shape ", shape_str(t.sizes()),
                                   "); pass it as an input to tcore.jit.trace");
  return "%" + it->second;
}

}  // namespace

void start(const std::vector<Tensor>& inputs) {
  TCORE_CHECK(state == nullptr, "tracer: a trace is already in progress on this thread");
  state = std::make_unique<State>();
  for (const Tensor& t : inputs) {
    const std::string name = "x" + std::to_string(state->inputs.size());
    state->names[t.impl()] = name;
    state->keep_alive.push_back(t);
    state->inputs.push_back("%" + name);
  }
  Tracing::set_active(true);
}

void abandon() {
  Tracing::set_active(false);
  state.reset();
}

std::string stop(const std::vector<Tensor>& outputs) {
  Tracing::set_active(false);
  std::vector<std::string> outs;
  try {
    for (const Tensor& t : outputs) outs.push_back(name_of(t));
  } catch (...) {
    state.reset();
    throw;
  }
  std::ostringstream ss;
  ss << "graph(";
  for (size_t i = 0; i < state->inputs.size(); ++i) ss << (i ? ", " : "") << state->inputs[i];
  ss << "):\n";
  for (const auto& line : state->lines) ss << "  " << line << "\n";
  ss << "  return (";
  for (size_t i = 0; i < outs.size(); ++i) ss << (i ? ", " : "") << outs[i];
  ss << ")\n";
  state.reset();
  return ss.str();
}

std::string operand(const Tensor& t) { return t.defined() ? name_of(t) : "None"; }
std::string operand(const std::optional<Tensor>& t) { return t && t->defined() ? name_of(*t) : "None"; }
std::string operand(ArrayRef<Tensor> ts) {
  throw Error("tracer: Tensor[] arguments cannot be traced yet");
}
std::string operand(ArrayRef<std::optional<Tensor>> ts) {
  (void)ts;
  throw Error("tracer: Tensor?[] arguments (advanced indexing) cannot be traced yet");
}
std::string operand(int64_t v) { return std::to_string(v); }
std::string operand(double v) {
  // the IR's spellings of the values a decimal literal cannot write
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream ss;
  ss.imbue(std::locale::classic());
  ss.precision(17);
  ss << v;
  std::string s = ss.str();
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // stays a float in the IR
  return s;
}
std::string operand(bool v) { return v ? "True" : "False"; }
std::string operand(const Scalar& v) {
  if (v.is_bool()) return operand(v.to<bool>());
  if (v.is_integral()) return operand(v.to_long());
  return operand(v.to_double());
}
std::string operand(IntArrayRef v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
std::string operand(std::string_view v) {
  // an IR string literal: ASCII, with escapes the lexer reads back byte for byte
  std::string s = "\"";
  for (const char c : v) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      s += '\\';
      s += c;
    } else if (c == '\n') {
      s += "\\n";
    } else if (b < 0x20 || b >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", b);
      s += buf;
    } else {
      s += c;
    }
  }
  return s + "\"";
}
std::string operand(ScalarType v) { return std::to_string(static_cast<int>(v)); }
std::string operand(Layout v) { return std::to_string(static_cast<int>(v)); }
std::string operand(MemoryFormat v) { return std::to_string(static_cast<int>(v)); }
std::string operand(Device v) { return operand(std::string_view(v.str())); }
// A Generator is state, not a value the IR can hold: the graph draws from the default one.
std::string operand(const Generator&) { return "None"; }

void record(const char* op, const std::vector<std::string>& args, const std::vector<Tensor>& outputs) {
  State& s = current();
  std::string lhs;
  for (const Tensor& t : outputs) {
    const std::string name = "v" + std::to_string(s.next++);
    s.names[t.impl()] = name;  // an in-place op's result takes a new name (SSA)
    s.keep_alive.push_back(t);
    lhs += (lhs.empty() ? "%" : ", %") + name;
  }
  std::string line = (lhs.empty() ? std::string() : lhs + " = ") + "tcore::" + op + "(";
  for (size_t i = 0; i < args.size(); ++i) line += (i ? ", " : "") + args[i];
  s.lines.push_back(line + ")");
}

}  // namespace tcore::jit::tracer
