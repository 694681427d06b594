#include "lexer.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>

namespace tcore::jit::detail {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }
bool is_printable(unsigned char b) { return b >= 0x20 && b < 0x7f; }

std::string hex_byte(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", b);
  return buf;
}

// Length of the UTF-8 sequence at text[i] and its code point, or 0 when it is not one.
size_t utf8_sequence(const std::string& text, size_t i, uint32_t& code) {
  const auto b = static_cast<unsigned char>(text[i]);
  size_t len = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0;
  if (b >= 0xF5 || len == 0 || i + len > text.size()) return 0;
  code = b & (0xFF >> (len + 1));
  for (size_t k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    code = (code << 6) | (c & 0x3F);
  }
  const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < min[len] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return len;
}

bool valid_utf8(const std::string& s) {
  uint32_t code = 0;
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
    } else {
      const size_t len = utf8_sequence(s, i, code);
      if (len == 0) return false;
      i += len;
    }
  }
  return true;
}

// -?D+(.D*)?([eE][+-]?D+)?  where D is a decimal digit; sets is_float.
bool well_formed_number(const std::string& n, bool& is_float) {
  size_t p = n[0] == '-' ? 1 : 0;
  const size_t first_digit = p;
  while (p < n.size() && is_digit(n[p])) ++p;
  if (p == first_digit) return false;
  is_float = false;
  if (p < n.size() && n[p] == '.') {
    is_float = true;
    ++p;
    while (p < n.size() && is_digit(n[p])) ++p;
  }
  if (p < n.size() && (n[p] == 'e' || n[p] == 'E')) {
    is_float = true;
    ++p;
    if (p < n.size() && (n[p] == '+' || n[p] == '-')) ++p;
    const size_t exp_digits = p;
    while (p < n.size() && is_digit(n[p])) ++p;
    if (p == exp_digits) return false;
  }
  return p == n.size();
}

}  // namespace

std::string printable(const std::string& text, size_t max) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max) return out + "...";
    const auto b = static_cast<unsigned char>(text[i]);
    out += is_printable(b) ? std::string(1, static_cast<char>(b)) : hex_byte(b);
  }
  return out;
}

IrError Lexer::error(int line, int col, const std::string& msg) const {
  // the source line, ASCII only (one column per byte, so the caret stays under its byte),
  // and a window of it when it is long
  size_t start = 0;
  for (int l = 1; l < line && start < text_.size(); ++l) {
    const size_t nl = text_.find('\n', start);
    start = nl == std::string::npos ? text_.size() : nl + 1;
  }
  size_t end = text_.find('\n', start);
  if (end == std::string::npos) end = text_.size();
  if (end > start && text_[end - 1] == '\r') --end;
  const size_t at = start + static_cast<size_t>(std::max(col, 1) - 1);
  const size_t kWindow = 100;
  const size_t from = at > start + kWindow ? at - kWindow : start;
  const size_t to = std::min(end, from + 2 * kWindow);
  std::string shown = from > start ? "..." : "";
  const size_t caret = shown.size() + (at - from);
  for (size_t i = from; i < to; ++i) {
    const auto b = static_cast<unsigned char>(text_[i]);
    shown += b == '\t' ? ' ' : is_printable(b) ? static_cast<char>(b) : '?';
  }
  if (to < end) shown += "...";
  return IrError(file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg + "\n    " + shown +
                 "\n    " + std::string(caret, ' ') + "^");
}

void Lexer::advance() {
  if (text_[i_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++i_;
}

void Lexer::check_byte() const {
  const auto b = static_cast<unsigned char>(text_[i_]);
  if (b == 0) throw error(line_, col_, "NUL byte in the graph text");
  if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f) {
    throw error(line_, col_, "control character " + hex_byte(b) + " in the graph text");
  }
  if (b >= 0x80) {
    uint32_t code = 0;
    if (utf8_sequence(text_, i_, code) == 0) throw error(line_, col_, "invalid UTF-8 byte " + hex_byte(b));
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", code);
    throw error(line_, col_, std::string("non-ASCII character ") + buf +
                                 ": the IR is ASCII (write \\xHH escapes inside strings)");
  }
}

std::vector<Token> Lexer::run() {
  std::vector<Token> out;
  while (i_ < text_.size()) {
    check_byte();
    const char c = text_[i_];
    if (c == '#') {
      while (i_ < text_.size() && text_[i_] != '\n') {
        check_byte();
        advance();
      }
    } else if (c == '\n') {
      if (!out.empty() && out.back().kind != Token::Newline) out.push_back({Token::Newline, "\n", line_, col_});
      advance();
    } else if (c == ' ' || c == '\t' || c == '\r') {
      advance();
    } else if (c == '%') {
      const int l = line_, k = col_;
      advance();
      std::string name = word();
      if (name.empty()) throw error(l, k, "expected a value name after '%'");
      out.push_back({Token::Value, name, l, k});
    } else if (is_alpha(c)) {
      const int l = line_, k = col_;
      out.push_back({Token::Ident, word(), l, k});
    } else if (is_digit(c) || c == '-') {
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

std::string Lexer::word() {
  std::string w;
  while (i_ < text_.size() && is_alnum(text_[i_])) {
    w += text_[i_];
    advance();
  }
  return w;
}

Token Lexer::number() {
  const int l = line_, k = col_;
  // the whole run of characters a number could be mistyped from: 1.2.3, 1e, --1, 12abc
  std::string n;
  while (i_ < text_.size()) {
    const char c = text_[i_];
    const char prev = n.empty() ? '\0' : n.back();
    const bool sign = (c == '-' || c == '+') &&
                      (n.empty() || prev == 'e' || prev == 'E' || prev == '-' || prev == '+');
    if (!(is_alnum(c) || c == '.' || sign)) break;
    n += c;
    advance();
  }
  if (n == "-") throw error(l, k, "unexpected character '-'");
  if (n == "-inf") {
    Token t{Token::Float, n, l, k};
    t.float_value = -std::numeric_limits<double>::infinity();
    return t;
  }
  bool is_float = false;
  if (!well_formed_number(n, is_float)) throw error(l, k, "malformed number '" + printable(n) + "'");
  Token t{is_float ? Token::Float : Token::Int, n, l, k};
  const char* first = n.data();
  const char* last = n.data() + n.size();
  if (!is_float) {
    const auto r = std::from_chars(first, last, t.int_value);
    if (r.ec != std::errc() || r.ptr != last) {
      throw error(l, k, "integer " + printable(n) + " is out of range for int64 (-9223372036854775808 to "
                        "9223372036854775807)");
    }
    return t;
  }
  const auto r = std::from_chars(first, last, t.float_value);
  if (r.ec == std::errc::result_out_of_range) {  // a literal that is not 0 but reads as 0 or inf is a mistake
    const size_t e = n.find_first_of("eE");
    const bool underflow = e != std::string::npos && e + 1 < n.size() && n[e + 1] == '-';
    throw error(l, k, "float " + printable(n) + (underflow ? " underflows to 0 as a double"
                                                          : " is out of range for a double (at most 1.8e308)"));
  } else if (r.ec != std::errc() || r.ptr != last) {
    throw error(l, k, "malformed number '" + printable(n) + "'");
  }
  return t;
}

Token Lexer::string() {
  const int l = line_, k = col_;
  advance();
  std::string s;
  while (i_ < text_.size() && text_[i_] != '"') {
    check_byte();
    if (text_[i_] == '\n') throw error(l, k, "unterminated string");
    if (text_[i_] != '\\') {
      s += text_[i_];
      advance();
      continue;
    }
    const int el = line_, ek = col_;
    advance();
    if (i_ >= text_.size() || text_[i_] == '\n') throw error(l, k, "unterminated string");
    check_byte();
    const char e = text_[i_];
    advance();
    switch (e) {
      case '\\': s += '\\'; break;
      case '"': s += '"'; break;
      case '\'': s += '\''; break;
      case 'n': s += '\n'; break;
      case 't': s += '\t'; break;
      case 'r': s += '\r'; break;
      case 'x': {
        int value = 0;
        for (int d = 0; d < 2; ++d) {
          const char h = i_ < text_.size() ? text_[i_] : '\0';
          const int v = is_digit(h) ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10 : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
          if (v < 0) throw error(el, ek, "\\x needs two hexadecimal digits");
          value = value * 16 + v;
          advance();
        }
        s += static_cast<char>(value);
        break;
      }
      default:
        throw error(el, ek, std::string("unknown escape '\\") + e + "' (use \\\\, \\\", \\', \\n, \\t, \\r or \\xHH)");
    }
  }
  if (i_ >= text_.size()) throw error(l, k, "unterminated string");
  advance();
  if (!valid_utf8(s)) throw error(l, k, "the string is not UTF-8 once its \\x escapes are decoded");
  return {Token::String, s, l, k};
}

}  // namespace tcore::jit::detail
