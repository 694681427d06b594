#pragma once
// Reverse-mode autograd: the graph (Node, Edge), saved tensors checked against
// in-place writes, the per-tensor metadata, and the engine's entry points.
//
// Generated code (generated/autograd/Functions_N.cpp) defines one Node subclass
// per operator with a formula in csrc/autograd/derivatives.yaml, and an Autograd
// kernel that records it; everything here is hand-written.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tcore/core/Dispatch.h"
#include "tcore/core/Tensor.h"

namespace tcore::autograd {

class Node;

// The next edges of one input of a node: one for a Tensor, one per element for a Tensor[].
struct EdgeRange {
  size_t begin = 0;
  size_t size = 0;
};

struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// What a gradient flowing into a node's input slot must look like.
struct InputMeta {
  std::vector<int64_t> sizes;
  ScalarType dtype = ScalarType::Float;
  Device device;
};

using TensorHook = std::function<Tensor(const Tensor&)>;  // may return an undefined Tensor: keep grad

class TCORE_API Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  // grads[i] is the gradient of the forward op's output i; returns one gradient per next edge.
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grads) = 0;
  virtual std::string name() const = 0;
  virtual void release_variables() {}

  bool should_compute_output(size_t i) const { return i < next_edges.size() && next_edges[i].valid(); }
  bool should_compute_any(EdgeRange r) const {
    for (size_t i = r.begin; i < r.begin + r.size; ++i)
      if (should_compute_output(i)) return true;
    return false;
  }
  uint32_t add_input_metadata(const Tensor& t);

  std::vector<Edge> next_edges;
  std::vector<InputMeta> input_meta;
  std::vector<std::vector<TensorHook>> pre_hooks;  // per input slot: tensor hooks, retain_grad
  uint64_t sequence_nr;
};

struct TCORE_API AutogradMeta {
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  std::weak_ptr<Node> grad_accumulator;
  uint32_t output_nr = 0;
  bool retains_grad = false;
};

// A tensor saved for backward. Inputs are kept as they are; outputs are kept without
// their grad_fn (a weak reference restores it on unpack), so nothing forms a cycle.
class TCORE_API SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  Tensor unpack(const char* name) const;
  void reset();
  bool defined() const { return data_.defined() || was_defined_; }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  bool is_output_ = false;
  bool was_defined_ = false;
  bool released_ = false;
  std::weak_ptr<Node> output_fn_;
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;
};

// ----- tensor metadata
TCORE_API AutogradMeta& meta(const Tensor& t);  // creates it on first use
TCORE_API bool is_leaf(const Tensor& t);
TCORE_API void set_requires_grad(const Tensor& t, bool requires_grad);
TCORE_API std::shared_ptr<Node> grad_fn(const Tensor& t);
TCORE_API Tensor grad(const Tensor& t);
TCORE_API void set_grad(const Tensor& t, const Tensor& g);
TCORE_API Tensor detach(const Tensor& t);
TCORE_API void retain_grad(const Tensor& t);
TCORE_API void register_hook(const Tensor& t, TensorHook hook);
TCORE_API Edge gradient_edge(const Tensor& t);

// ----- used by generated autograd kernels
TCORE_API std::vector<Edge> collect_next_edges(std::initializer_list<const Tensor*> inputs);
TCORE_API EdgeRange append_next_edges(std::vector<Edge>& edges, const Tensor& input);
TCORE_API EdgeRange append_next_edges(std::vector<Edge>& edges, ArrayRef<Tensor> inputs);
// out[r.begin + i] = grads[i]: a Tensor[] input's gradients (grads has one per element).
TCORE_API void assign_range(std::vector<Tensor>& out, EdgeRange r, std::vector<Tensor>&& grads);
TCORE_API std::vector<SavedVariable> save_list(ArrayRef<Tensor> inputs);
TCORE_API std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& saved, const char* name);
TCORE_API std::vector<std::vector<int64_t>> sizes_of(ArrayRef<Tensor> inputs);
TCORE_API void set_history(const Tensor& output, const std::shared_ptr<Node>& fn);
// After an in-place op on `self`: its history now starts at fn.
TCORE_API void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn);
TCORE_API void check_inplace(const Tensor& self, bool any_requires_grad, const char* op);
TCORE_API void check_no_grad_for_out(bool any_requires_grad, const char* op);

// ----- the engine
// Accumulates d(sum of roots * grad_roots)/d(leaf) into every leaf's .grad.
TCORE_API void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
                        std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);
// Returns the gradients of the roots w.r.t. `inputs` (nothing is accumulated).
TCORE_API std::vector<Tensor> grad(const std::vector<Tensor>& roots, const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& grad_roots, std::optional<bool> retain_graph = std::nullopt,
                                   bool create_graph = false, bool allow_unused = false);

}  // namespace tcore::autograd
