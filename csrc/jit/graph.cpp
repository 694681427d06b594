// The IR parser (a tokenizer and recursive descent) and the interpreter.
#include "tcore/jit/graph.h"

#include "tcore/core/Dispatch.h"

#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace tcore::jit {
namespace {

struct Token {
  enum Kind { Ident, Value, Int, Float, String, Punct, Newline, End } kind;
  std::string text;
  int line, col;
};

class Lexer {
 public:
  Lexer(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '#') {
        while (i_ < text_.size() && text_[i_] != '\n') advance();
      } else if (c == '\n') {
        if (!out.empty() && out.back().kind != Token::Newline) out.push_back({Token::Newline, "\n", line_, col_});
        advance();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
      } else if (c == '%') {
        const int l = line_, k = col_;
        advance();
        std::string name = word();
        if (name.empty()) throw error(l, k, "expected a value name after '%'");
        out.push_back({Token::Value, name, l, k});
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        const int l = line_, k = col_;
        out.push_back({Token::Ident, word(), l, k});
      } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '-' && i_ + 1 < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i_ + 1])))) {
        out.push_back(number());
      } else if (c == '"') {
        out.push_back(string());
      } else if (c == ':' && i_ + 1 < text_.size() && text_[i_ + 1] == ':') {
        out.push_back({Token::Punct, "::", line_, col_});
        advance();
        advance();
      } else if (std::string("()[],=:.").find(c) != std::string::npos) {
        out.push_back({Token::Punct, std::string(1, c), line_, col_});
        advance();
      } else {
        throw error(line_, col_, std::string("unexpected character '") + c + "'");
      }
    }
    out.push_back({Token::End, "", line_, col_});
    return out;
  }

  IrError error(int line, int col, const std::string& msg) const {
    return IrError(file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg);
  }

 private:
  void advance() {
    if (text_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  std::string word() {
    std::string w;
    while (i_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[i_])) || text_[i_] == '_')) {
      w += text_[i_];
      advance();
    }
    return w;
  }
  Token number() {
    const int l = line_, k = col_;
    std::string n;
    bool is_float = false;
    if (text_[i_] == '-') {
      n += '-';
      advance();
    }
    while (i_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[i_])) || std::string(".eE+-").find(text_[i_]) != std::string::npos)) {
      if ((text_[i_] == '+' || text_[i_] == '-') && !(n.back() == 'e' || n.back() == 'E')) break;
      is_float = is_float || !std::isdigit(static_cast<unsigned char>(text_[i_]));
      n += text_[i_];
      advance();
    }
    return {is_float ? Token::Float : Token::Int, n, l, k};
  }
  Token string() {
    const int l = line_, k = col_;
    advance();
    std::string s;
    while (i_ < text_.size() && text_[i_] != '"') {
      if (text_[i_] == '\n') throw error(l, k, "unterminated string");
      if (text_[i_] == '\\' && i_ + 1 < text_.size()) advance();
      s += text_[i_];
      advance();
    }
    if (i_ >= text_.size()) throw error(l, k, "unterminated string");
    advance();
    return {Token::String, s, l, k};
  }

  const std::string& text_;
  const std::string& file_;
  size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, const Lexer& lexer) : t_(std::move(tokens)), lexer_(lexer) {}

  const Token& peek() const { return t_[i_]; }
  bool at(const char* punct) const { return peek().kind == Token::Punct && peek().text == punct; }
  IrError error(const std::string& msg) const {
    const Token& t = peek();
    const std::string found = t.kind == Token::End ? "end of file" : t.kind == Token::Newline ? "end of line" : "'" + t.text + "'";
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

  Operand operand() {
    const Token& t = peek();
    Operand o{Operand::Kind::Constant, "", IValue(), "", t.line, t.col};
    if (t.kind == Token::Value) {
      o.kind = Operand::Kind::Value;
      o.value = take().text;
    } else if (t.kind == Token::Int) {
      o.constant = IValue(static_cast<int64_t>(std::stoll(take().text)));
    } else if (t.kind == Token::Float) {
      o.constant = IValue(std::stod(take().text));
    } else if (t.kind == Token::String) {
      o.constant = IValue(take().text);
    } else if (t.kind == Token::Ident && (t.text == "True" || t.text == "False")) {
      o.constant = IValue(take().text == "True");
    } else if (t.kind == Token::Ident && t.text == "None") {
      take();
    } else if (at("[")) {
      take();
      List items;
      while (!at("]")) {
        Operand item = operand();
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
    while (true) {
      if (peek().kind != Token::Value) throw error("expected a value name (%name)");
      n.outputs.push_back(take().text);
      if (!at(",")) break;
      take();
    }
    expect("=", "'='");
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

}  // namespace

Graph Graph::parse(const std::string& text, const std::string& filename) {
  Graph g;
  g.filename_ = filename;
  Lexer lexer(text, g.filename_);
  Parser p(lexer.run(), lexer);
  p.newlines();
  if (p.peek().kind != Token::Ident || p.peek().text != "graph") throw p.error("expected 'graph'");
  p.take();
  p.expect("(", "'('");
  std::set<std::string> defined;
  while (!p.at(")")) {
    if (p.peek().kind != Token::Value) throw p.error("expected an input (%name)");
    const Token t = p.take();
    if (!defined.insert(t.text).second) throw lexer.error(t.line, t.col, "input %" + t.text + " is defined twice");
    g.inputs_.push_back(t.text);
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
    g.nodes_.push_back(std::move(n));
    p.newlines();
  }
  p.take();
  p.expect("(", "'('");
  g.outputs_ = p.operands(")");
  for (const auto& o : g.outputs_) check_defined(o);
  p.newlines();
  if (p.peek().kind != Token::End) throw p.error("expected end of file after return");
  return g;
}

Graph Graph::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw IrError(path + ": cannot open the graph file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
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
