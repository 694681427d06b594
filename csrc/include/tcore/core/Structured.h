#pragma once
// Structured kernels, as PyTorch has them (codegen/structured.py writes the rest).
//
// An operator's out= entry is `structured: True`; its functional and in-place forms name it as
// their `structured_delegate`. The generator declares, in the operator's native header,
//   namespace tcore::meta   { struct structured_exp : MetaBase { void meta(const Tensor& self); }; }
//   namespace tcore::native { struct structured_exp_out : meta::structured_exp {
//                               void impl(const Tensor& self, const Tensor& out); }; }
// and the kernel sources define them:
//   TCORE_META_FUNC(exp)(const Tensor& self) { set_output_castable(0, self.sizes(), ..., "exp"); }
//   TCORE_IMPL_FUNC(exp_out)(const Tensor& self, const Tensor& out) { ...compute into out... }
// meta() checks the arguments and declares each output (sizes, dtype) through set_output; it
// never touches data. impl() computes into outputs that already have those sizes and a dtype
// the result can be cast to. Every kernel of the group is generated from the two: for each
// backend the functional (allocates), in-place (checks self) and out= (checks and resizes out,
// PyTorch's rules) forms, and for the Meta backend the three with meta() alone.
#include <optional>
#include <string>

#include "tcore/core/ArrayRef.h"
#include "tcore/core/Tensor.h"

namespace tcore {

struct TCORE_API MetaBase {
  virtual ~MetaBase() = default;
  // Output i is a tensor of these sizes and dtype; a fresh one (a functional call) has these
  // strides, or is contiguous when they are empty (a given output keeps its own).
  virtual void set_output(int64_t i, IntArrayRef sizes, ScalarType dtype, IntArrayRef strides = {}) = 0;
  // The tensor output i is written to when the call has one (self in place, out for out=),
  // else an undefined tensor (a functional call allocates it in set_output).
  virtual const Tensor& maybe_get_output(int64_t i) = 0;

  // The dtype rule of PyTorch's elementwise operators: the result is computed in `compute`;
  // a given output (in place, out=) keeps its dtype when `compute` can be cast to it, and
  // else it is an error naming `op`.
  void set_output_castable(int64_t i, IntArrayRef sizes, ScalarType compute, const char* op, IntArrayRef strides = {});
};

namespace structured {

// The device a structured kernel runs on: that of its tensor arguments, which must agree
// (a CPU 0-dim tensor, such as a wrapped Python number, goes with any device).
struct TCORE_API DeviceOf {
  const char* op;
  std::optional<Device> found;
  void add(const Tensor& t);
  void add(const std::optional<Tensor>& t) {
    if (t) add(*t);
  }
  void add(ArrayRef<Tensor> ts) {
    for (const auto& t : ts) add(t);
  }
  void add(ArrayRef<std::optional<Tensor>> ts) {
    for (const auto& t : ts) add(t);
  }
  // The device found, which must be of this backend's type (a call with none runs there).
  Device get(DeviceType backend) const;
};
template <typename... Ts>
Device kernel_device(DeviceType backend, const char* op, const Ts&... args) {
  DeviceOf d{op, std::nullopt};
  (d.add(args), ...);
  return d.get(backend);
}

// A fresh tensor with these strides, contiguous when they are empty (the output of a functional
// call; the memory_format factories and the kernels that allocate their own results use it too).
TCORE_API Tensor make_output(IntArrayRef sizes, ScalarType dtype, Device device, IntArrayRef strides = {});
// In place: the result must have self's sizes and dtype.
TCORE_API void check_inplace(const Tensor& self, IntArrayRef sizes, ScalarType dtype, const char* op);
// out=: PyTorch's rules. The dtype must be the result's and the device the computation's; an
// out of other sizes is resized, with a warning unless it had no elements, to the strides the meta
// function gave (empty: contiguous), as PyTorch's resize_out restrides.
TCORE_API void resize_out(const Tensor& out, IntArrayRef sizes, ScalarType dtype, Device device, const char* op,
                          IntArrayRef strides = {});

}  // namespace structured
}  // namespace tcore

// Definitions of the generated structs' member functions (inside namespace tcore::meta and
// tcore::native respectively, as in PyTorch).
#define TCORE_META_FUNC(name) void structured_##name::meta
#define TCORE_META_FUNC2(name, overload) void structured_##name##_##overload::meta
#define TCORE_IMPL_FUNC(name) void structured_##name::impl
