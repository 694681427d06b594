#pragma once
// A small text IR and its interpreter. A graph file reads:
//
//   graph(%x, %w):
//     %h = tcore::mm(%x, %w)
//     %y = tcore::relu(%h)
//     %s = tcore::sum.dim_IntList(%y, [1], keepdim=True)
//     return (%s)
//
// Constants are ints, floats (also inf, -inf, nan), True/False, None, "strings" (escapes
// \\ \" \' \n \t \r \xHH) and [lists, nested at most 64 deep]; arguments may be given by
// name. The text is ASCII. Every node runs through the boxed registry (generated unboxing code).
// Errors name line:column: syntax, unknown operators, undefined values, and (at run
// time) wrong argument types or counts.
#include <string>
#include <vector>

#include "tcore/jit/ivalue.h"

namespace tcore::jit {

struct TCORE_API IrError : ValueError {
  using ValueError::ValueError;
};

struct Operand {
  enum class Kind { Value, Constant } kind;
  std::string value;  // for Kind::Value: the name without '%'
  IValue constant;
  std::string keyword;  // empty for positional
  int line = 0, col = 0;
};

struct Node {
  std::vector<std::string> outputs;
  std::string op;  // "add.Tensor"
  const BoxedOperator* boxed = nullptr;
  std::vector<Operand> inputs;
  int line = 0, col = 0;
};

class TCORE_API Graph {
 public:
  static Graph parse(const std::string& text, const std::string& filename = "<graph>");
  static Graph load(const std::string& path);

  Stack run(Stack inputs) const;
  const std::vector<std::string>& inputs() const { return inputs_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<std::string> operators() const;  // "add.Tensor", in order of first use
  // The graph in canonical IR text (no comments or type annotations): parse(g.text()).text() == g.text().
  std::string text() const;

 private:
  std::string filename_;
  std::vector<std::string> inputs_;
  std::vector<Node> nodes_;
  std::vector<Operand> outputs_;
};

}  // namespace tcore::jit
