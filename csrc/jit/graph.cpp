// The IR parser (a tokenizer and recursive descent) and the interpreter.
#include "tcore/jit/graph.h"

#include "tcore/core/Dispatch.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "lexer.h"
#include "tcore/jit/tracer.h"

namespace tcore::jit {
namespace {

using detail::Lexer;
using detail::Token;


class Parser {
 public:
  Parser(std::vector<Token> tokens, const Lexer& lexer) : t_(std::move(tokens)), lexer_(lexer) {}

  const Token& peek() const { return t_[i_]; }
  bool at(const char* punct) const { return peek().kind == Token::Punct && peek().text == punct; }
  IrError error(const std::string& msg) const {
    const Token& t = peek();
    std::string found;
    switch (t.kind) {
      case Token::End: found = "end of file"; break;
      case Token::Newline: found = "end of line"; break;
      case Token::Value: found = "'%" + t.text + "'"; break;
      case Token::String: found = "the string \"" + detail::printable(t.text) + "\""; break;
      default: found = "'" + detail::printable(t.text) + "'";
    }
    return lexer_.error(t.line, t.col, msg + ", found " + found);
  }
  Token take() { return t_[i_++]; }
  void expect(const char* punct, const char* what) {
    if (!at(punct)) throw error(std::string("expected ") + what);
    ++i_;
  }
  void newlines() {
    while (peek().kind == Token::Newline) ++i_;
  }

  Operand operand(int depth = 0) {
    const Token& t = peek();
    Operand o{Operand::Kind::Constant, "", IValue(), "", t.line, t.col};
    if (t.kind == Token::Value) {
      o.kind = Operand::Kind::Value;
      o.value = take().text;
    } else if (t.kind == Token::Int) {
      o.constant = IValue(take().int_value);
    } else if (t.kind == Token::Float) {
      o.constant = IValue(take().float_value);
    } else if (t.kind == Token::Ident && (t.text == "inf" || t.text == "nan")) {
      o.constant = IValue(take().text == "inf" ? std::numeric_limits<double>::infinity()
                                               : std::numeric_limits<double>::quiet_NaN());
    } else if (t.kind == Token::String) {
      o.constant = IValue(take().text);
    } else if (t.kind == Token::Ident && (t.text == "True" || t.text == "False")) {
      o.constant = IValue(take().text == "True");
    } else if (t.kind == Token::Ident && t.text == "None") {
      take();
    } else if (at("[")) {
      if (depth >= kMaxListDepth) {
        throw lexer_.error(t.line, t.col, "lists nested deeper than " + std::to_string(kMaxListDepth) + " levels");
      }
      take();
      List items;
      while (!at("]")) {
        Operand item = operand(depth + 1);
        if (item.kind != Operand::Kind::Constant) throw lexer_.error(item.line, item.col, "lists hold constants only");
        items.push_back(item.constant);
        if (!at("]")) expect(",", "',' or ']'");
      }
      take();
      o.constant = IValue(std::move(items));
    } else {
      throw error("expected a value (%name) or a constant");
    }
    return o;
  }

  std::vector<Operand> operands(const char* close) {
    std::vector<Operand> out;
    while (!at(close)) {
      std::string keyword;
      if (peek().kind == Token::Ident && t_[i_ + 1].kind == Token::Punct && t_[i_ + 1].text == "=") {
        keyword = take().text;
        take();
      }
      Operand o = operand();
      o.keyword = keyword;
      out.push_back(std::move(o));
      if (!at(close)) expect(",", close[0] == ')' ? "',' or ')'" : "','");
    }
    take();
    return out;
  }

  Node node() {
    Node n;
    n.line = peek().line;
    const bool no_outputs = peek().kind == Token::Ident && peek().text == "tcore";  // an operator that returns ()
    while (!no_outputs) {
      if (peek().kind != Token::Value) throw error("expected a value name (%name)");
      n.outputs.push_back(take().text);
      if (!at(",")) break;
      take();
    }
    if (!no_outputs) expect("=", "'='");
    const Token ns = peek();
    if (ns.kind != Token::Ident || ns.text != "tcore") throw error("expected an operator (tcore::name.overload)");
    n.col = ns.col;
    take();
    expect("::", "'::'");
    if (peek().kind != Token::Ident) throw error("expected an operator name");
    n.op = take().text;
    if (at(".")) {
      take();
      if (peek().kind != Token::Ident) throw error("expected an overload name");
      n.op += "." + take().text;
    }
    n.boxed = find_boxed(n.op);
    if (n.boxed == nullptr) {
      const bool left_out = is_unselected_operator(n.op);
      throw lexer_.error(ns.line, ns.col, (left_out ? "operator 'tcore::" + n.op + "' is not built in this selective build"
                                                    : "unknown operator 'tcore::" + n.op + "'"));
    }
    expect("(", "'('");
    n.inputs = operands(")");
    return n;
  }

  const std::vector<Token> t_;
  size_t i_ = 0;
  const Lexer& lexer_;
};

struct Parsed {
  std::vector<std::string> inputs;
  std::vector<Node> nodes;
  std::vector<Operand> outputs;
};

Parsed parse_body(Parser& p, const Lexer& lexer) {
  Parsed g;
  p.newlines();
  if (p.peek().kind != Token::Ident || p.peek().text != "graph") throw p.error("expected 'graph'");
  p.take();
  p.expect("(", "'('");
  std::set<std::string> defined;
  while (!p.at(")")) {
    if (p.peek().kind != Token::Value) throw p.error("expected an input (%name)");
    const Token t = p.take();
    if (!defined.insert(t.text).second) throw lexer.error(t.line, t.col, "input %" + t.text + " is defined twice");
    g.inputs.push_back(t.text);
    if (p.at(":")) {  // an optional type annotation
      p.take();
      if (p.peek().kind != Token::Ident) throw p.error("expected a type");
      p.take();
    }
    if (!p.at(")")) p.expect(",", "',' or ')'");
  }
  p.take();
  p.expect(":", "':'");
  p.newlines();
  auto check_defined = [&](const Operand& o) {
    if (o.kind == Operand::Kind::Value && !defined.count(o.value)) {
      throw lexer.error(o.line, o.col, "use of undefined value %" + o.value);
    }
  };
  while (!(p.peek().kind == Token::Ident && p.peek().text == "return")) {
    if (p.peek().kind == Token::End) throw p.error("expected 'return'");
    Node n = p.node();
    for (const auto& o : n.inputs) check_defined(o);
    for (const auto& out : n.outputs) defined.insert(out);
    g.nodes.push_back(std::move(n));
    p.newlines();
  }
  p.take();
  p.expect("(", "'('");
  g.outputs = p.operands(")");
  for (const auto& o : g.outputs) check_defined(o);
  p.newlines();
  if (p.peek().kind != Token::End) throw p.error("expected end of file after return");
  return g;
}

}  // namespace

Graph Graph::parse(const std::string& text, const std::string& filename) {
  Graph g;
  g.filename_ = filename;
  Lexer lexer(text, g.filename_);
  std::vector<Token> tokens;
  try {
    tokens = lexer.run();
  } catch (const IrError&) {
    throw;
  } catch (const std::exception& e) {  // out of memory: still an error at a place
    throw lexer.error(lexer.line(), lexer.col(), "cannot read the graph (" + detail::printable(e.what()) + ")");
  }
  Parser p(std::move(tokens), lexer);
  try {
    Parsed parsed = parse_body(p, lexer);
    g.inputs_ = std::move(parsed.inputs);
    g.nodes_ = std::move(parsed.nodes);
    g.outputs_ = std::move(parsed.outputs);
  } catch (const IrError&) {
    throw;
  } catch (const std::exception& e) {
    throw p.error("cannot parse the graph (" + detail::printable(e.what()) + ")");
  }
  return g;
}

Graph Graph::load(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw IrError(path + ": cannot open the graph file (no such file)");
  // a folder reads as empty and a FIFO blocks: only regular files are graphs
  if (fs::is_directory(st)) throw IrError(path + ": cannot open the graph file (it is a folder)");
  if (!fs::is_regular_file(st)) throw IrError(path + ": cannot open the graph file (not a regular file)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IrError(path + ": cannot open the graph file");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw IrError(path + ": cannot read the graph file");
  return parse(ss.str(), path);
}

namespace {
std::string constant_text(const IValue& v) {
  return std::visit([](const auto& x) -> std::string {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, std::monostate>) return "None";
    else if constexpr (std::is_same_v<T, bool>) return x ? "True" : "False";
    else if constexpr (std::is_same_v<T, int64_t>) return std::to_string(x);
    else if constexpr (std::is_same_v<T, double>) return tracer::operand(x);
    else if constexpr (std::is_same_v<T, std::string>) return tracer::operand(std::string_view(x));
    else if constexpr (std::is_same_v<T, List>) {
      std::string s = "[";
      for (size_t i = 0; i < x.size(); ++i) s += (i ? ", " : "") + constant_text(x[i]);
      return s + "]";
    } else {
      throw Error("a graph constant cannot be a Tensor");
    }
  }, v.value);
}

std::string operand_text(const Operand& o) {
  const std::string value = o.kind == Operand::Kind::Value ? "%" + o.value : constant_text(o.constant);
  return o.keyword.empty() ? value : o.keyword + "=" + value;
}
}  // namespace

std::string Graph::text() const {
  std::string s = "graph(";
  for (size_t i = 0; i < inputs_.size(); ++i) s += (i ? ", %" : "%") + inputs_[i];
  s += "):\n";
  for (const Node& n : nodes_) {
    s += "  ";
    for (size_t i = 0; i < n.outputs.size(); ++i) s += (i ? ", %" : "%") + n.outputs[i];
    s += (n.outputs.empty() ? "tcore::" : " = tcore::") + n.op + "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) s += (i ? ", " : "") + operand_text(n.inputs[i]);
    s += ")\n";
  }
  s += "  return (";
  for (size_t i = 0; i < outputs_.size(); ++i) s += (i ? ", " : "") + operand_text(outputs_[i]);
  return s + ")\n";
}

std::vector<std::string> Graph::operators() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& n : nodes_)
    if (seen.insert(n.op).second) out.push_back(n.op);
  return out;
}

Stack Graph::run(Stack inputs) const {
  if (inputs.size() != inputs_.size()) {
    throw TypeError(filename_ + ": the graph takes " + std::to_string(inputs_.size()) + " inputs but " +
                    std::to_string(inputs.size()) + " were given");
  }
  std::map<std::string, IValue> env;
  for (size_t i = 0; i < inputs.size(); ++i) env[inputs_[i]] = std::move(inputs[i]);
  auto value_of = [&](const Operand& o) { return o.kind == Operand::Kind::Value ? env.at(o.value) : o.constant; };
  for (const Node& n : nodes_) {
    const auto& params = n.boxed->arguments;
    const std::string where = filename_ + ":" + std::to_string(n.line) + ":" + std::to_string(n.col) + ": ";
    Stack args(params.size());
    std::vector<bool> given(params.size(), false);
    size_t positional = 0;
    for (const Operand& o : n.inputs) {
      size_t slot = positional;
      if (!o.keyword.empty()) {
        slot = params.size();
        for (size_t i = 0; i < params.size(); ++i)
          if (params[i].name == o.keyword) slot = i;
        if (slot == params.size()) throw TypeError(where + "tcore::" + n.op + " has no argument '" + o.keyword + "'");
      } else {
        ++positional;
      }
      if (slot >= params.size()) {
        throw TypeError(where + "tcore::" + n.op + " takes " + std::to_string(params.size()) + " arguments but more were given");
      }
      args[slot] = value_of(o);
      given[slot] = true;
    }
    for (size_t i = 0; i < params.size(); ++i) {
      if (given[i]) continue;
      if (!params[i].has_default) throw TypeError(where + "tcore::" + n.op + " is missing argument '" + params[i].name + "'");
      args[i] = params[i].default_value;
    }
    Stack out;
    try {
      out = call_boxed(n.op, std::move(args));
    } catch (const TypeError& e) {
      throw TypeError(where + "tcore::" + n.op + ": " + e.what());
    } catch (const ValueError& e) {
      throw ValueError(where + "tcore::" + n.op + ": " + e.what());
    } catch (const Error& e) {
      throw Error(where + "tcore::" + n.op + ": " + e.what());
    }
    if (out.size() != n.outputs.size()) {
      throw TypeError(where + "tcore::" + n.op + " returns " + std::to_string(out.size()) + " values, not " +
                      std::to_string(n.outputs.size()));
    }
    for (size_t i = 0; i < out.size(); ++i) env[n.outputs[i]] = std::move(out[i]);
  }
  Stack results;
  for (const auto& o : outputs_) results.push_back(value_of(o));
  return results;
}

}  // namespace tcore::jit
