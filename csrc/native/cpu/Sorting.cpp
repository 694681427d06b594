// Sorting and selection along a dim: sort, topk, kthvalue, median, cummax/cummin, and
// unique (_unique2, unique_dim).
//
// Each works on rows: the input is copied with `dim` moved last (contiguous rows), each
// row is processed on its own (several threads for many rows), and the results are laid
// back with `dim` in place. NaN orders as the largest value, as in PyTorch: last in an
// ascending sort, first in a descending one and in topk; median and kthvalue of a row
// that holds NaN are NaN. float16/bfloat16 rows are sorted in float32.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include <tcore/ops/_unique2_native.h>
#include <tcore/ops/cummax_native.h>
#include <tcore/ops/cummin_native.h>
#include <tcore/ops/kthvalue_native.h>
#include <tcore/ops/median_native.h>
#include <tcore/ops/sort_native.h>
#include <tcore/ops/topk_native.h>
#include <tcore/ops/unique_dim_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Parallel.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// Rows of `self` along `dim`: a contiguous copy with dim moved last (a 0-dim tensor is one
// row of one element), in a dtype the comparisons dispatch on.
struct Rows {
  Tensor data;                  // [outer, n] contiguous
  int64_t outer = 1, n = 1;
  std::vector<int64_t> sizes;   // self's sizes with dim moved last
  int64_t dim = 0;
  ScalarType dtype;             // self's dtype
};

Rows rows_of(const Tensor& self, int64_t dim, const char* op) {
  Rows r;
  r.dtype = self.dtype();
  r.dim = wrap_dim(dim, self.dim());
  if (self.dim() == 0) {
    r.data = contiguous_copy(cast(self, opmath_type(self.dtype())));
    return r;
  }
  std::vector<int64_t> strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == r.dim) continue;
    r.sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  r.sizes.push_back(self.sizes()[r.dim]);
  strides.push_back(self.strides()[r.dim]);
  const ScalarType work = opmath_type(self.dtype());
  Tensor moved = make_view(self, r.sizes, strides, self.storage_offset());
  r.data = empty_cpu(r.sizes, work);
  copy_kernel(r.data, moved);
  r.n = r.sizes.back();
  r.outer = r.n == 0 ? numel_of(IntArrayRef(r.sizes.data(), r.sizes.size() - 1)) : r.data.numel() / r.n;
  (void)op;
  return r;
}

// A [outer, m] result laid out dim-last, as a contiguous tensor with `dim` in place
// (keepdim=false drops it when m is 1 and the caller asks).
Tensor laid_back(const Tensor& t, const Rows& r, int64_t m, bool drop_dim, ScalarType dtype) {
  std::vector<int64_t> last = r.sizes;
  if (last.empty()) {  // 0-dim input: a 0-dim result (or an empty one: topk with k = 0)
    if (t.numel() == 0) return empty_cpu({0}, dtype);
    Tensor out = empty_cpu({}, dtype);
    copy_kernel(out, make_view(t, {}, {}, t.storage_offset()));
    return out;
  }
  last.back() = m;
  const std::vector<int64_t> cstr = contiguous_strides(last);
  std::vector<int64_t> sizes, strides;
  const int64_t nd = static_cast<int64_t>(last.size());
  for (int64_t d = 0, src = 0; d < nd; ++d) {
    if (d == r.dim) {
      if (!drop_dim) {
        sizes.push_back(m);
        strides.push_back(cstr[nd - 1]);
      }
      continue;
    }
    sizes.push_back(last[src]);
    strides.push_back(cstr[src]);
    ++src;
  }
  Tensor out = empty_cpu(sizes, dtype);
  copy_kernel(out, make_view(t, sizes, strides, t.storage_offset()));
  return out;
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    (void)v;
    return false;
  }
}

// a < b with NaN the largest value
template <typename T>
bool nan_last_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// An unsigned key that orders as the value does, NaN (of either sign) the largest and -0. equal to
// 0. (flipped sign bits: negative floats' bits reversed, positive ones' raised above them).
template <typename T>
auto order_key(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    if (std::isnan(v)) return std::numeric_limits<U>::max();
    if (v == T(0)) v = T(0);
    U u;
    std::memcpy(&u, &v, sizeof u);
    constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
    return (u & sign) ? U(~u) : U(u | sign);
  } else if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return static_cast<std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>>(v);
  } else if constexpr (sizeof(T) <= 4) {
    return static_cast<uint32_t>(static_cast<int32_t>(v)) ^ 0x80000000u;
  } else {
    return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
  }
}

// A row's positions in sorted order into idx[0, n): ascending, or descending (NaN first), equal
// values in input order; or, with `first` < n, only the first `first` of that order (topk's, in
// order) or, with `only_kth`, the one at position `first` (kthvalue's). The keys are sorted with
// their positions (one 64-bit word each for 4-byte types, packed key << 32 | position): orders
// the comparison of values through positions made 5x slower (sort of 2048 rows of 2048 float32).
template <typename T>
class RowOrder {
  using Key = decltype(order_key(T{}));
  static constexpr bool kPacked = sizeof(Key) == 4;
  std::vector<uint64_t> packed_;
  std::vector<std::pair<Key, int64_t>> pairs_;

  template <typename V>
  static void arrange(std::vector<V>& v, int64_t first, bool only_kth) {
    const auto mid = v.begin() + first;
    if (only_kth) {
      std::nth_element(v.begin(), mid, v.end());
    } else if (first < static_cast<int64_t>(v.size())) {
      std::partial_sort(v.begin(), mid, v.end());
    } else {
      std::sort(v.begin(), v.end());
    }
  }

 public:
  void operator()(const T* x, int64_t n, bool descending, int64_t* idx, int64_t first, bool only_kth = false) {
    const auto key = [descending](T v) { return descending ? Key(~order_key(v)) : order_key(v); };
    const int64_t count = only_kth ? 1 : std::min(first, n);
    if (kPacked && n <= int64_t{UINT32_MAX}) {
      packed_.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) packed_[i] = (uint64_t{key(x[i])} << 32) | static_cast<uint64_t>(i);
      arrange(packed_, first, only_kth);
      for (int64_t c = 0; c < count; ++c) idx[c] = static_cast<int64_t>(packed_[only_kth ? first : c] & 0xffffffffu);
    } else {
      pairs_.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) pairs_[i] = {key(x[i]), i};
      arrange(pairs_, first, only_kth);
      for (int64_t c = 0; c < count; ++c) idx[c] = pairs_[only_kth ? first : c].second;
    }
  }
};

// Calls body(row_begin, row_end) over the rows, split across threads when there are many.
template <typename F>
void for_rows(const Rows& r, F body) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(r.n, 1));
  parallel_for(0, r.outer, grain, body);
}

}  // namespace

// ------------------------------------------------------------------ sort
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  (void)stable;  // always stable, so the order of equal elements is the input's
  const Rows r = rows_of(self, dim, "sort");
  Tensor values = empty_cpu(r.data.sizes(), r.data.dtype());
  Tensor indices = empty_cpu(r.data.sizes(), ScalarType::Long);
  dispatch_dtype(r.data.dtype(), "sort", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(r.data.data_ptr());
    T* v = static_cast<T*>(values.data_ptr());
    int64_t* ix = indices.data_ptr<int64_t>();
    for_rows(r, [&](int64_t b, int64_t e) {
      RowOrder<T> order;
      for (int64_t row = b; row < e; ++row) {
        const T* x = in + row * r.n;
        int64_t* idx = ix + row * r.n;
        order(x, r.n, descending, idx, r.n);
        for (int64_t k = 0; k < r.n; ++k) v[row * r.n + k] = x[idx[k]];
      }
    });
  });
  return {laid_back(values, r, r.n, false, self.dtype()), laid_back(indices, r, r.n, false, ScalarType::Long)};
}

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return sort(self, std::optional<bool>(true), dim, descending);
}

// ------------------------------------------------------------------ topk
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // the k values always come sorted (largest first, or smallest first)
  const Rows r = rows_of(self, dim, "topk");
  TCORE_CHECK(k >= 0 && k <= (self.dim() == 0 ? 1 : r.n), "selected index k out of range");
  Tensor values = empty_cpu({r.outer, k}, r.data.dtype());
  Tensor indices = empty_cpu({r.outer, k}, ScalarType::Long);
  dispatch_dtype(r.data.dtype(), "topk", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(r.data.data_ptr());
    for_rows(r, [&](int64_t b, int64_t e) {
      RowOrder<T> order;
      std::vector<int64_t> idx(static_cast<size_t>(k));
      for (int64_t row = b; row < e; ++row) {
        const T* x = in + row * r.n;
        order(x, r.n, largest, idx.data(), k);  // largest: descending, NaN first; ties: the lower index first
        for (int64_t c = 0; c < k; ++c) {
          static_cast<T*>(values.data_ptr())[row * k + c] = x[idx[c]];
          indices.data_ptr<int64_t>()[row * k + c] = idx[c];
        }
      }
    });
  });
  return {laid_back(values, r, k, false, self.dtype()), laid_back(indices, r, k, false, ScalarType::Long)};
}

// ------------------------------------------------------------------ kthvalue, median
namespace {

// The k-th smallest (0-based) of each row, NaN largest; with nan_wins, a row holding NaN
// gives NaN and the index of its first NaN (median propagates NaN, as in PyTorch).
std::tuple<Tensor, Tensor> select_kth(const Rows& r, int64_t k, bool nan_wins, bool keepdim, ScalarType dtype) {
  Tensor values = empty_cpu({r.outer, 1}, r.data.dtype());
  Tensor indices = empty_cpu({r.outer, 1}, ScalarType::Long);
  dispatch_dtype(r.data.dtype(), "kthvalue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(r.data.data_ptr());
    for_rows(r, [&](int64_t b, int64_t e) {
      RowOrder<T> order;
      for (int64_t row = b; row < e; ++row) {
        const T* x = in + row * r.n;
        int64_t pick = -1;
        if (nan_wins) {
          for (int64_t i = 0; i < r.n && pick < 0; ++i)
            if (is_nan(x[i])) pick = i;
        }
        if (pick < 0) {
          order(x, r.n, false, &pick, k, /*only_kth=*/true);
        }
        static_cast<T*>(values.data_ptr())[row] = x[pick];
        indices.data_ptr<int64_t>()[row] = pick;
      }
    });
  });
  return {laid_back(values, r, 1, !keepdim, dtype), laid_back(indices, r, 1, !keepdim, ScalarType::Long)};
}

}  // namespace

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const Rows r = rows_of(self, dim, "kthvalue");
  TCORE_CHECK(k >= 1 && k <= r.n, "kthvalue(): selected number k out of range for dimension ", r.dim);
  return select_kth(r, k - 1, false, keepdim, self.dtype());
}

std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  const Rows r = rows_of(self, dim, "median");
  TCORE_CHECK_INDEX(r.n > 0, "median(): Expected reduction dim ", r.dim, " to have non-zero size.");
  return select_kth(r, (r.n - 1) / 2, true, keepdim, self.dtype());
}

Tensor median(const Tensor& self) {
  if (self.numel() == 0) {
    TCORE_CHECK_TYPE(is_floating(self.dtype()), "median() of an empty tensor: no value of dtype ",
                     to_string(self.dtype()), " to give");
    Tensor out = empty_cpu({}, ScalarType::Double);
    *out.data_ptr<double>() = std::nan("");
    return cast(out, self.dtype());
  }
  const Tensor flat = make_view(contiguous_copy(self), {self.numel()}, {1}, 0);
  return std::get<0>(median(flat, 0, false));
}

// ------------------------------------------------------------------ cummax, cummin
namespace {

template <bool Max>
std::tuple<Tensor, Tensor> cumulative_extreme(const Tensor& self, int64_t dim, const char* op) {
  const Rows r = rows_of(self, dim, op);
  Tensor values = empty_cpu(r.data.sizes(), r.data.dtype());
  Tensor indices = empty_cpu(r.data.sizes(), ScalarType::Long);
  dispatch_dtype(r.data.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(r.data.data_ptr());
    T* v = static_cast<T*>(values.data_ptr());
    int64_t* ix = indices.data_ptr<int64_t>();
    if (r.n == 0) return;
    for_rows(r, [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        const T* x = in + row * r.n;
        T best = x[0];
        int64_t at = 0;
        for (int64_t i = 0; i < r.n; ++i) {
          // PyTorch's rule: a NaN always takes over; ties move to the later index
          const bool better = Max ? x[i] >= best : x[i] <= best;
          if (is_nan(x[i]) || (!is_nan(best) && better)) {
            best = x[i];
            at = i;
          }
          v[row * r.n + i] = best;
          ix[row * r.n + i] = at;
        }
      }
    });
  });
  return {laid_back(values, r, r.n, false, self.dtype()), laid_back(indices, r, r.n, false, ScalarType::Long)};
}

}  // namespace

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) { return cumulative_extreme<true>(self, dim, "cummax"); }
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) { return cumulative_extreme<false>(self, dim, "cummin"); }

// ------------------------------------------------------------------ unique
// Sorted distinct values of all elements (every NaN distinct, after the numbers, as in
// PyTorch), the index of each input element's value, and how often each value occurs.
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted, bool return_inverse, bool return_counts) {
  (void)sorted;  // always sorted, as PyTorch's CPU kernel
  (void)return_inverse;
  (void)return_counts;
  const int64_t n = self.numel();
  const Tensor flat = contiguous_copy(cast(self, opmath_type(self.dtype())));
  std::vector<int64_t> order(static_cast<size_t>(n));
  Tensor inverse = empty_cpu(self.sizes(), ScalarType::Long);
  std::vector<int64_t> firsts, counts;
  dispatch_dtype(flat.dtype(), "unique", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(flat.data_ptr());
    RowOrder<T>{}(x, n, false, order.data(), n);  // NaN last, equal values (and the NaNs) in input order
    int64_t* inv = inverse.data_ptr<int64_t>();
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = order[k];
      const bool same = k > 0 && !is_nan(x[i]) && x[i] == x[order[k - 1]];
      if (!same) {
        firsts.push_back(i);
        counts.push_back(0);
      }
      ++counts.back();
      inv[i] = static_cast<int64_t>(firsts.size()) - 1;
    }
  });
  const int64_t m = static_cast<int64_t>(firsts.size());
  Tensor values = empty_cpu({m}, flat.dtype());
  dispatch_dtype(flat.dtype(), "unique", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t k = 0; k < m; ++k)
      static_cast<T*>(values.data_ptr())[k] = static_cast<const T*>(flat.data_ptr())[firsts[k]];
  });
  Tensor count_t = empty_cpu({m}, ScalarType::Long);
  std::copy(counts.begin(), counts.end(), count_t.data_ptr<int64_t>());
  return {cast(values, self.dtype()), inverse, count_t};
}

// The distinct slices along `dim`, in lexicographic order.
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted, bool return_inverse,
                                              bool return_counts) {
  (void)sorted;
  (void)return_inverse;
  (void)return_counts;
  TCORE_CHECK_INDEX(self.dim() > 0, "unique_dim: a 0-dimensional tensor has no dim ", dim);
  const int64_t d = wrap_dim(dim, self.dim());
  // slices as rows: dim first, the rest flattened
  std::vector<int64_t> sizes{self.sizes()[d]}, strides{self.strides()[d]};
  for (int64_t k = 0; k < self.dim(); ++k)
    if (k != d) {
      sizes.push_back(self.sizes()[k]);
      strides.push_back(self.strides()[k]);
    }
  const ScalarType work = opmath_type(self.dtype());
  Tensor moved = empty_cpu(sizes, work);
  copy_kernel(moved, make_view(self, sizes, strides, self.storage_offset()));
  const int64_t rows = sizes[0];
  const int64_t width = numel_of(IntArrayRef(sizes.data() + 1, sizes.size() - 1));
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), int64_t{0});
  Tensor inverse = empty_cpu({rows}, ScalarType::Long);
  std::vector<int64_t> firsts, counts;
  dispatch_dtype(work, "unique_dim", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(moved.data_ptr());
    auto less = [&](int64_t a, int64_t b) {
      for (int64_t c = 0; c < width; ++c) {
        const T u = x[a * width + c], v = x[b * width + c];
        if (nan_last_less(u, v)) return true;
        if (nan_last_less(v, u)) return false;
      }
      return false;
    };
    std::stable_sort(order.begin(), order.end(), less);
    for (int64_t k = 0; k < rows; ++k) {
      const int64_t i = order[k];
      const bool same = k > 0 && !less(order[k - 1], i) && !less(i, order[k - 1]);
      if (!same) {
        firsts.push_back(i);
        counts.push_back(0);
      }
      ++counts.back();
      inverse.data_ptr<int64_t>()[i] = static_cast<int64_t>(firsts.size()) - 1;
    }
  });
  const int64_t m = static_cast<int64_t>(firsts.size());
  std::vector<int64_t> out_sizes = self.sizes().vec();
  out_sizes[d] = m;
  Tensor picked = empty_cpu({m, width}, work);
  const int64_t bytes = width * picked.element_size();
  for (int64_t k = 0; k < m; ++k)
    std::memcpy(static_cast<char*>(picked.data_ptr()) + k * bytes,
                static_cast<const char*>(moved.data_ptr()) + firsts[k] * bytes, static_cast<size_t>(bytes));
  // back to self's layout: the picked rows are the slices along d
  std::vector<int64_t> moved_sizes = sizes;
  moved_sizes[0] = m;
  const std::vector<int64_t> mstr = contiguous_strides(moved_sizes);
  std::vector<int64_t> back_strides(static_cast<size_t>(self.dim()));
  back_strides[d] = mstr[0];
  for (int64_t k = 0, src = 1; k < self.dim(); ++k)
    if (k != d) back_strides[k] = mstr[src++];
  Tensor values = empty_cpu(out_sizes, self.dtype());
  copy_kernel(values, make_view(picked, out_sizes, back_strides, 0));
  Tensor count_t = empty_cpu({m}, ScalarType::Long);
  std::copy(counts.begin(), counts.end(), count_t.data_ptr<int64_t>());
  return {values, inverse, count_t};
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
