#pragma once
// The IR's tokenizer (internal to csrc/jit). The IR is ASCII text: any other byte, a
// NUL or a control character is an error at its line:column, as is a malformed or
// out-of-range number. Every error message is ASCII, with the source line and a caret:
//
//   g.ir:2:30: malformed number '1.2.3'
//       %y = tcore::add.Scalar(%x, 1.2.3)
//                                  ^
#include <cstdint>
#include <string>
#include <vector>

#include "tcore/jit/graph.h"

namespace tcore::jit::detail {

struct Token {
  enum Kind { Ident, Value, Int, Float, String, Punct, Newline, End } kind;
  std::string text;  // for String: the value, escapes decoded
  int line, col;
  int64_t int_value = 0;   // Kind::Int
  double float_value = 0;  // Kind::Float
};

// `text` printable in a message: ASCII, control and non-ASCII bytes as \xHH, cut at `max` bytes.
std::string printable(const std::string& text, size_t max = 60);

class Lexer {
 public:
  Lexer(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  std::vector<Token> run();
  // "file:line:col: msg", then the line and a caret under the column.
  IrError error(int line, int col, const std::string& msg) const;
  int line() const { return line_; }
  int col() const { return col_; }

 private:
  void advance();
  void check_byte() const;  // the byte at i_ may appear in the IR
  std::string word();
  Token number();
  Token string();

  const std::string& text_;
  const std::string& file_;
  size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

}  // namespace tcore::jit::detail
