// einsum: the equation is parsed into one label per dim of each operand (an ellipsis
// stands for the dims no letter names, right-aligned across operands); a label repeated in
// one operand takes a diagonal; a label only one operand uses and the output does not is
// summed away; then the operands are contracted left to right, each pair with one bmm
// (batch labels, the left operand's own, the contracted ones, the right operand's own).
// Size-1 dims broadcast. Autograd records the views, sums and bmms it calls.
#include <algorithm>
#include <map>
#include <string>

#include <tcore/ops/bmm.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/diagonal.h>
#include <tcore/ops/einsum_native.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/sum.h>

#include "native/TensorUtils.h"

namespace tcore::native {
namespace {

constexpr int kLetters = 52;  // A-Z are 0-25, a-z 26-51 (so label order is ASCII order); ellipsis dims after

struct Operand {
  Tensor t;
  std::vector<int> labels;  // one per dim of t
};

int label_of(char c, size_t at) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  throw ValueError(detail::str_cat("einsum(): invalid subscript given at index ", at,
                                   " in the equation string, subscripts must be in [a-zA-Z]"));
}

char letter_of(int label) { return static_cast<char>(label < 26 ? 'A' + label : 'a' + (label - 26)); }

// A term's letters, with -1 where its ellipsis is; `offset` is the term's place in the equation.
std::vector<int> parse_term(const std::string& term, size_t offset, bool& has_ellipsis, int operand) {
  std::vector<int> out;
  has_ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      TCORE_CHECK_VALUE(!has_ellipsis && term.compare(i, 3, "...") == 0, "einsum(): found '.' for operand ", operand,
                        " that is not part of any ellipsis");
      has_ellipsis = true;
      out.push_back(-1);
      i += 2;
      continue;
    }
    out.push_back(label_of(term[i], offset + i));
  }
  return out;
}

std::vector<int64_t> positions(const std::vector<int>& labels, const std::vector<int>& wanted) {
  std::vector<int64_t> out;
  for (int l : wanted) out.push_back(std::find(labels.begin(), labels.end(), l) - labels.begin());
  return out;
}

bool has(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

// Sums the dims whose labels are not in `keep`.
Operand sum_except(Operand op, const std::vector<int>& keep) {
  std::vector<int64_t> dims;
  std::vector<int> rest;
  for (size_t d = 0; d < op.labels.size(); ++d) {
    if (has(keep, op.labels[d])) {
      rest.push_back(op.labels[d]);
    } else {
      dims.push_back(static_cast<int64_t>(d));
    }
  }
  if (dims.empty()) return op;
  return {tcore::sum(op.t, IntArrayRef(dims), false, std::nullopt), rest};
}

// op's dims in the order `order`, size-1 dims expanded to `size` of their label.
Tensor arranged(const Operand& op, const std::vector<int>& order, const std::map<int, int64_t>& size) {
  Tensor t = tcore::permute(op.t, positions(op.labels, order));
  std::vector<int64_t> full;
  for (int l : order) full.push_back(size.at(l));
  return t.sizes().vec() == full ? t : tcore::expand(t, full);
}

int64_t product(const std::vector<int>& labels, const std::map<int, int64_t>& size) {
  int64_t p = 1;
  for (int l : labels) p *= size.at(l);
  return p;
}

Operand contract(const Operand& a, const Operand& b, const std::vector<int>& keep, const std::map<int, int64_t>& size) {
  std::vector<int> batch, contracted, left, right;
  for (int l : a.labels) {
    if (has(b.labels, l)) {
      (has(keep, l) ? batch : contracted).push_back(l);
    } else {
      left.push_back(l);
    }
  }
  for (int l : b.labels)
    if (!has(a.labels, l)) right.push_back(l);
  std::vector<int> a_order = batch, b_order = batch;
  a_order.insert(a_order.end(), left.begin(), left.end());
  a_order.insert(a_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), right.begin(), right.end());
  const int64_t nb = product(batch, size), nl = product(left, size), nc = product(contracted, size),
                nr = product(right, size);
  const Tensor x = tcore::reshape(arranged(a, a_order, size), {nb, nl, nc});
  const Tensor y = tcore::reshape(arranged(b, b_order, size), {nb, nc, nr});
  std::vector<int> labels = batch;
  labels.insert(labels.end(), left.begin(), left.end());
  labels.insert(labels.end(), right.begin(), right.end());
  std::vector<int64_t> shape;
  for (int l : labels) shape.push_back(size.at(l));
  // nothing summed: a broadcast product, as torch's (exactly bmm's values; autocast leaves mul as it is)
  const Tensor xy = contracted.empty() ? tcore::mul(x, y) : tcore::bmm(x, y);
  return {tcore::reshape(xy, shape), labels};
}

}  // namespace

Tensor einsum(std::string_view equation, ArrayRef<Tensor> tensors, OptionalIntArrayRef path) {
  (void)path;  // contraction order: left to right
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq.push_back(c);
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  TCORE_CHECK_VALUE(!tensors.empty(), "einsum(): must provide at least one operand");

  // ---- the terms of the inputs
  std::vector<std::vector<int>> terms;
  std::vector<bool> ellipses;
  for (size_t start = 0, k = 0;; ++k) {
    const size_t comma = lhs.find(',', start);
    const std::string term = lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    bool ell = false;
    terms.push_back(parse_term(term, start, ell, static_cast<int>(k)));
    ellipses.push_back(ell);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  TCORE_CHECK_VALUE(terms.size() <= tensors.size(), "einsum(): fewer operands were provided than specified in the equation");
  TCORE_CHECK_VALUE(terms.size() >= tensors.size(), "einsum(): more operands were provided than specified in the equation");

  int64_t ell_dims = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const int64_t letters = static_cast<int64_t>(terms[k].size()) - (ellipses[k] ? 1 : 0);
    const int64_t nd = tensors[k].dim();
    if (ellipses[k]) {
      TCORE_CHECK_VALUE(letters <= nd, "einsum(): the number of subscripts in the equation (", letters,
                        ") is more than the number of dimensions (", nd, ") for operand ", k);
      ell_dims = std::max(ell_dims, nd - letters);
    } else {
      TCORE_CHECK_VALUE(letters == nd, "einsum(): the number of subscripts in the equation (", letters,
                        ") does not match the number of dimensions (", nd, ") for operand ", k,
                        " and no ellipsis was given");
    }
  }

  // ---- operands with one label per dim; diagonals of repeated labels
  std::map<int, int> uses;  // how many times each label occurs in the inputs
  std::vector<Operand> ops;
  for (size_t k = 0; k < terms.size(); ++k) {
    Operand op{tensors[k], {}};
    const int64_t covered = tensors[k].dim() - (static_cast<int64_t>(terms[k].size()) - (ellipses[k] ? 1 : 0));
    for (int l : terms[k]) {
      if (l >= 0) {
        op.labels.push_back(l);
      } else {
        for (int64_t e = ell_dims - covered; e < ell_dims; ++e) op.labels.push_back(kLetters + static_cast<int>(e));
      }
    }
    for (int l : op.labels) ++uses[l];
    for (bool again = true; again;) {
      again = false;
      for (size_t i = 0; i < op.labels.size() && !again; ++i) {
        for (size_t j = i + 1; j < op.labels.size() && !again; ++j) {
          if (op.labels[i] != op.labels[j]) continue;
          TCORE_CHECK_VALUE(op.t.sizes()[i] == op.t.sizes()[j], "einsum(): subscript ", letter_of(op.labels[i]),
                            " is repeated for operand ", k, " but the sizes don't match, ", op.t.sizes()[i],
                            " != ", op.t.sizes()[j]);
          const int l = op.labels[i];
          op.t = tcore::diagonal(op.t, 0, static_cast<int64_t>(i), static_cast<int64_t>(j));
          op.labels.erase(op.labels.begin() + static_cast<std::ptrdiff_t>(j));
          op.labels.erase(op.labels.begin() + static_cast<std::ptrdiff_t>(i));
          op.labels.push_back(l);
          again = true;
        }
      }
    }
    ops.push_back(op);
  }

  // ---- the output's labels
  std::vector<int> output;
  const bool any_ellipsis = std::find(ellipses.begin(), ellipses.end(), true) != ellipses.end();
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    bool ell = false;
    for (int l : parse_term(rhs, arrow + 2, ell, -1)) {
      if (l < 0) {
        for (int64_t e = 0; e < ell_dims; ++e) output.push_back(kLetters + static_cast<int>(e));
        continue;
      }
      TCORE_CHECK_VALUE(uses.count(l), "einsum(): output subscript ", letter_of(l),
                        " does not appear in the equation for any input operand");
      TCORE_CHECK_VALUE(!has(output, l), "einsum(): output subscript ", letter_of(l), " appears more than once in the output");
      output.push_back(l);
    }
  } else {
    if (any_ellipsis)
      for (int64_t e = 0; e < ell_dims; ++e) output.push_back(kLetters + static_cast<int>(e));
    for (const auto& [l, n] : uses)
      if (l < kLetters && n == 1) output.push_back(l);
  }

  // ---- each label's size (size-1 dims broadcast)
  std::map<int, int64_t> size;
  for (size_t k = 0; k < ops.size(); ++k) {
    for (size_t d = 0; d < ops[k].labels.size(); ++d) {
      const int l = ops[k].labels[d];
      const int64_t s = ops[k].t.sizes()[d];
      auto it = size.find(l);
      if (it == size.end() || it->second == 1) {
        size[l] = s;
      } else {
        TCORE_CHECK_VALUE(s == 1 || s == it->second, "einsum(): operands do not broadcast: subscript ",
                          l < kLetters ? std::string(1, letter_of(l)) : std::string("..."), " has size ", it->second,
                          " and ", s, " (operand ", k, ")");
      }
    }
  }

  // ---- contraction, left to right
  auto needed_after = [&](size_t k) {  // labels the output or the operands after k use
    std::vector<int> keep = output;
    for (size_t j = k + 1; j < ops.size(); ++j)
      for (int l : ops[j].labels)
        if (!has(keep, l)) keep.push_back(l);
    return keep;
  };
  Operand result = ops[0];
  for (size_t k = 1; k < ops.size(); ++k) {
    const std::vector<int> keep = needed_after(k);
    std::vector<int> keep_a = keep, keep_b = keep;
    for (int l : ops[k].labels) keep_a.push_back(l);
    for (int l : result.labels) keep_b.push_back(l);
    result = contract(sum_except(result, keep_a), sum_except(ops[k], keep_b), keep, size);
  }
  result = sum_except(result, output);
  Tensor out = tcore::permute(result.t, positions(result.labels, output));
  std::vector<int64_t> full;
  for (int l : output) full.push_back(size.at(l));
  return out.sizes().vec() == full ? out : tcore::expand(out, full);
}

}  // namespace tcore::native
