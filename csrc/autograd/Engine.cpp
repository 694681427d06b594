// The backward engine: discovers the graph from the roots without recursion, runs
// nodes once all their inputs are in (most recently created first), reduces each
// gradient to the shape its input had (broadcasting), and accumulates into leaves.
#include <atomic>
#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include <tcore/ops/add_ops.h>  // the signature only: a default edit does not recompile this
#include <tcore/ops/any.h>
#include <tcore/ops/isnan.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/view.h>

#include "tcore/autograd/autograd.h"
#include "native/TensorUtils.h"

namespace tcore::autograd {
namespace {

bool same_sizes(IntArrayRef a, const std::vector<int64_t>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// Sums a broadcast gradient back to the shape of the input it belongs to; one of another shape is
// an error (torch's validate_outputs), never reshaped.
Tensor sum_to(const Tensor& g, const std::vector<int64_t>& sizes) {
  if (same_sizes(g.sizes(), sizes)) return g;
  const int64_t lead = g.dim() - static_cast<int64_t>(sizes.size());
  bool expandable = lead >= 0;
  for (size_t i = 0; expandable && i < sizes.size(); ++i)
    expandable = sizes[i] == 1 || g.sizes()[static_cast<size_t>(lead) + i] == sizes[i];
  TCORE_CHECK(expandable, "autograd: a function returned an invalid gradient - got ", shape_str(g.sizes()),
              " but expected shape compatible with ", shape_str(sizes));
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < g.dim(); ++i) {
    if (i < lead || (sizes[i - lead] == 1 && g.sizes()[i] != 1)) dims.push_back(i);
  }
  Tensor r = dims.empty() ? g : tcore::sum(g, IntArrayRef(dims), true);
  return same_sizes(r.sizes(), sizes) ? r : tcore::view(r, sizes);
}

Tensor validate(const Tensor& g, const InputMeta& m) {
  if (!g.defined()) return g;
  Tensor r = sum_to(g, m.sizes);
  if (r.dtype() != m.dtype) r = native::cast(r, m.dtype);
  return native::on_device(r, m.device);  // a gradient that crossed devices (to("cuda") in the forward) goes back
}

struct ReadyOrder {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

struct GraphTask {
  bool keep_graph;
  bool accumulate;  // false for autograd.grad: leaves' .grad stay untouched
  std::map<std::pair<Node*, uint32_t>, size_t> captures;
  std::vector<Tensor> captured;
};

// grad_fn.register_prehook: may replace the node's incoming gradients.
void run_node_pre_hooks(Node& n, std::vector<Tensor>& inputs) {
  const auto hooks = n.node_pre_hooks.items;
  for (const auto& [id, hook] : hooks) {
    std::vector<Tensor> r = hook(inputs);
    if (r.empty()) continue;
    TCORE_CHECK(r.size() == inputs.size(), "hook registered on ", n.name(), " has returned an incorrect number of "
                "values (got ", r.size(), ", but expected ", inputs.size(), ")");
    inputs = std::move(r);
  }
}

// grad_fn.register_hook: sees (gradients for the node's inputs, incoming gradients), may replace the former.
void run_node_post_hooks(Node& n, std::vector<Tensor>& outputs, const std::vector<Tensor>& incoming) {
  const auto hooks = n.post_hooks.items;
  for (const auto& [id, hook] : hooks) {
    std::vector<Tensor> r = hook(outputs, incoming);
    if (r.empty()) continue;
    TCORE_CHECK(r.size() == outputs.size(), "hook registered on ", n.name(), " has returned an incorrect number of "
                "values (got ", r.size(), ", but expected ", outputs.size(), ")");
    outputs = std::move(r);
  }
}

thread_local const GraphTask* running_task = nullptr;  // the innermost execute() on this thread
std::atomic<bool> anomaly{false}, anomaly_nan{true};

// set_detect_anomaly(True): torch's "Function 'X' returned nan values in its i-th output."
void check_anomaly(const Node& n, const std::vector<Tensor>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !is_floating(g.dtype())) continue;
    NoGradGuard no_grad;
    TCORE_CHECK(!native::item<bool>(tcore::any(tcore::isnan(g))), "Function '", n.name(), "' returned nan values "
                "in its ", i, i == 1 ? "st" : i == 2 ? "nd" : i == 3 ? "rd" : "th", " output.");
  }
}

void execute(const std::vector<Edge>& roots, const std::vector<Tensor>& root_grads, GraphTask& task) {
  struct Running {  // (a node may run a backward itself: reentrant)
    const GraphTask* outer = running_task;
    explicit Running(const GraphTask& t) { running_task = &t; }
    ~Running() { running_task = outer; }
  } running(task);
  // dependencies: how many edges point at each node
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, std::shared_ptr<Node>> alive;
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  for (const Edge& e : roots) {
    if (e.valid() && seen.insert(e.fn.get()).second) {
      stack.push_back(e.fn.get());
      alive[e.fn.get()] = e.fn;
    }
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) continue;
      deps[e.fn.get()] += 1;
      if (seen.insert(e.fn.get()).second) {
        stack.push_back(e.fn.get());
        alive[e.fn.get()] = e.fn;
      }
    }
  }
  // grad(outputs, inputs): only the nodes on a path to an input's node run (torch's exec_info); an
  // input's own node, when no other input lies past it, gives its gradient (after its tensor hooks)
  // without running. Nodes off every path get nothing: their hooks (retain_grad's) do not fire, and
  // their saved tensors are not read.
  std::unordered_set<Node*> captures, needed;
  for (const auto& [key, index] : task.captures) captures.insert(key.first);
  if (!captures.empty()) {
    std::unordered_map<Node*, bool> leads;  // (memo: whether a capture lies past the node)
    std::vector<std::pair<Node*, size_t>> path;
    for (const auto& [n, fn] : alive) {
      if (leads.count(n)) continue;
      path.push_back({n, 0});
      while (!path.empty()) {
        auto& [node, next] = path.back();
        if (next < node->next_edges.size()) {
          Node* child = node->next_edges[next++].fn.get();
          if (child != nullptr && !leads.count(child)) {
            leads[child] = false;  // (in progress: a graph has no cycles)
            path.push_back({child, 0});
          }
          continue;
        }
        bool any = false;
        for (const Edge& e : node->next_edges) {
          any = any || (e.valid() && (captures.count(e.fn.get()) || leads[e.fn.get()]));
        }
        leads[node] = any;
        if (any) needed.insert(node);
        path.pop_back();
      }
    }
  }
  const auto runs = [&](Node* n) { return captures.empty() || needed.count(n) || captures.count(n); };
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  auto add_to = [&](Node* n, uint32_t nr, const Tensor& g) {
    auto& buf = buffers[n];
    if (buf.size() < n->input_meta.size()) buf.resize(n->input_meta.size());
    if (!g.defined()) return;
    Tensor v = validate(g, n->input_meta[nr]);
    buf[nr] = buf[nr].defined() ? ops::add_Tensor::call(buf[nr], v, 1) : v;
  };
  std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].valid()) continue;
    add_to(roots[i].fn.get(), roots[i].input_nr, root_grads[i]);
  }
  std::unordered_set<Node*> pushed;
  for (const Edge& e : roots) {
    if (e.valid() && deps[e.fn.get()] == 0 && pushed.insert(e.fn.get()).second) ready.push(e.fn.get());
  }
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    if (!runs(n)) continue;  // (a root off every path to an input)
    std::vector<Tensor> inputs = std::move(buffers[n]);
    buffers.erase(n);
    inputs.resize(n->input_meta.size());
    for (size_t slot = 0; slot < inputs.size(); ++slot) {
      const auto hooks = n->pre_hooks[slot].items;  // a copy: hooks may add or remove hooks
      for (const auto& [id, hook] : hooks) {
        if (!inputs[slot].defined()) break;
        Tensor replaced = hook(inputs[slot]);
        if (replaced.defined()) inputs[slot] = replaced;
      }
      auto it = task.captures.find({n, static_cast<uint32_t>(slot)});
      if (it != task.captures.end()) task.captured[it->second] = inputs[slot];
    }
    if (!captures.empty() && !needed.count(n)) continue;  // (an input's node with no input past it)
    run_node_pre_hooks(*n, inputs);
    const bool is_accumulator = n->next_edges.empty() && n->name() == "AccumulateGrad";
    std::vector<Tensor> outputs;
    if (!is_accumulator || task.accumulate) {
      const std::vector<Tensor> incoming = n->post_hooks.empty() ? std::vector<Tensor>() : inputs;
      outputs = n->apply(std::move(inputs));
      if (anomaly.load(std::memory_order_relaxed) && anomaly_nan.load(std::memory_order_relaxed)) {
        check_anomaly(*n, outputs);
      }
      run_node_post_hooks(*n, outputs, incoming);
    }
    if (!task.keep_graph) n->release_variables();
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.valid() || !runs(e.fn.get())) continue;
      if (i < outputs.size()) add_to(e.fn.get(), e.input_nr, outputs[i]);
      if (--deps[e.fn.get()] == 0) ready.push(e.fn.get());
    }
  }
}

std::vector<Tensor> default_root_grads(const std::vector<Tensor>& roots, const std::vector<Tensor>& given) {
  TCORE_CHECK_VALUE(given.empty() || given.size() == roots.size(), "grad_tensors should have the same length as "
                    "tensors (", given.size(), " vs ", roots.size(), ")");
  std::vector<Tensor> out;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (i < given.size() && given[i].defined()) {
      out.push_back(given[i]);
      continue;
    }
    TCORE_CHECK(roots[i].numel() == 1, "grad can be implicitly created only for scalar outputs (got shape ",
                shape_str(roots[i].sizes()), ")");
    NoGradGuard guard;
    out.push_back(tcore::ones(roots[i].sizes(), roots[i].dtype(), std::nullopt, roots[i].device()));
  }
  return out;
}

std::vector<Edge> root_edges(const std::vector<Tensor>& roots) {
  std::vector<Edge> edges;
  for (size_t i = 0; i < roots.size(); ++i) {
    Edge e = gradient_edge(roots[i]);
    TCORE_CHECK(e.valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    edges.push_back(e);
  }
  return edges;
}

}  // namespace

void set_anomaly_mode(bool enabled, bool check_nan) {
  anomaly = enabled;
  anomaly_nan = check_nan;
}
bool anomaly_enabled() { return anomaly; }
bool anomaly_check_nan() { return anomaly_nan; }

bool current_task_accumulates() { return running_task == nullptr || running_task->accumulate; }

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
              std::optional<bool> retain_graph, bool create_graph) {
  GraphTask task{retain_graph.value_or(create_graph), true, {}, {}};
  const std::vector<Edge> edges = root_edges(roots);
  const std::vector<Tensor> grads = default_root_grads(roots, grad_roots);
  AutoGradMode mode(create_graph);
  execute(edges, grads, task);
}

void backward_into(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
                   std::optional<bool> retain_graph, bool create_graph, const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> grads = grad(roots, inputs, grad_roots, retain_graph, create_graph, true);
  AutoGradMode mode(create_graph);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& g = grads[i];
    if (!g.defined()) continue;
    const Tensor& x = inputs[i];
    if (is_leaf(x)) {  // its accumulator: the leaf's layout, the sum, the post-accumulate hooks
      gradient_edge(x).fn->apply({g});
      continue;
    }
    AutogradMeta& m = meta(x);
    if (m.retains_grad) continue;  // (its retain_grad hook summed it during the pass)
    if (!m.grad.defined()) m.grad = create_graph ? g : detach(g);
    else if (create_graph) m.grad = ops::add_Tensor::call(m.grad, g, 1);
    else ops::add__Tensor::call(m.grad, g, 1);
  }
}

std::vector<Tensor> grad(const std::vector<Tensor>& roots, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_roots, std::optional<bool> retain_graph, bool create_graph,
                         bool allow_unused) {
  GraphTask task{retain_graph.value_or(create_graph), false, {}, {}};
  task.captured.resize(inputs.size());
  // held for the whole call: a leaf's gradient accumulator lives only as long as someone holds
  // it, and a root that is itself an input (grad(x, x)) must reach this same one
  std::vector<Edge> input_edges;
  for (size_t i = 0; i < inputs.size(); ++i) {
    TCORE_CHECK(inputs[i].requires_grad(), "One of the differentiated Tensors does not require grad");
    input_edges.push_back(gradient_edge(inputs[i]));
    task.captures[{input_edges.back().fn.get(), input_edges.back().input_nr}] = i;
  }
  const std::vector<Edge> edges = root_edges(roots);
  const std::vector<Tensor> grads = default_root_grads(roots, grad_roots);
  {
    AutoGradMode mode(create_graph);
    execute(edges, grads, task);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    TCORE_CHECK(allow_unused || task.captured[i].defined(), "The differentiated Tensor at index ", i, " appears to "
                "not have been used in the graph. Set allow_unused=True if this is the desired behavior.");
  }
  return task.captured;
}

}  // namespace tcore::autograd
