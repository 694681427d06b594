#pragma once
// grad_fn._saved_<name>: the fields generated backward nodes save, as IValues (tensors,
// numbers, strings, lists; an absent optional is None). Included by generated code only.
#include <optional>
#include <string>
#include <vector>

#include "tcore/autograd/autograd.h"
#include "tcore/jit/ivalue.h"

namespace tcore::autograd {

inline jit::IValue saved_ivalue(const SavedVariable& v, const char* name, const Node* owner) {
  Tensor t = v.unpack(name, owner);
  return t.defined() ? jit::IValue(t) : jit::IValue();
}
// a tensor kept as it is (index lists, Tensor?[]: integer tensors without history)
inline jit::IValue saved_ivalue(const Tensor& t, const char*, const Node*) {
  return t.defined() ? jit::IValue(t) : jit::IValue();
}
inline jit::IValue saved_ivalue(const std::vector<SavedVariable>& vs, const char* name, const Node* owner) {
  jit::List out;
  for (const SavedVariable& v : vs) out.push_back(saved_ivalue(v, name, owner));
  return out;
}
inline jit::IValue saved_ivalue(int64_t v, const char*, const Node*) { return v; }
inline jit::IValue saved_ivalue(double v, const char*, const Node*) { return v; }
inline jit::IValue saved_ivalue(bool v, const char*, const Node*) { return v; }
inline jit::IValue saved_ivalue(const std::string& v, const char*, const Node*) { return v; }
inline jit::IValue saved_ivalue(const Scalar& v, const char*, const Node*) {
  if (v.is_bool()) return v.to<bool>();
  if (v.is_integral()) return v.to<int64_t>();
  return v.to<double>();
}
inline jit::IValue saved_ivalue(ScalarType v, const char*, const Node*) { return static_cast<int64_t>(v); }
inline jit::IValue saved_ivalue(Layout v, const char*, const Node*) { return static_cast<int64_t>(v); }
inline jit::IValue saved_ivalue(MemoryFormat v, const char*, const Node*) { return static_cast<int64_t>(v); }
inline jit::IValue saved_ivalue(const Device& v, const char*, const Node*) { return v.str(); }
template <typename T>
jit::IValue saved_ivalue(const std::vector<T>& vs, const char* name, const Node* owner) {
  jit::List out;
  for (const T& v : vs) out.push_back(saved_ivalue(v, name, owner));
  return out;
}
template <typename T>
jit::IValue saved_ivalue(const std::optional<T>& v, const char* name, const Node* owner) {
  return v ? saved_ivalue(*v, name, owner) : jit::IValue();
}
template <typename T, size_t N>
jit::IValue saved_ivalue(const std::array<T, N>& vs, const char* name, const Node* owner) {
  jit::List out;
  for (const T& v : vs) out.push_back(saved_ivalue(v, name, owner));
  return out;
}

}  // namespace tcore::autograd
