// prod, amax/amin and argmax/argmin (the impls of their structured out= entries; meta functions:
// native/ReduceOps.cpp), max/min (with indices), all/any, var/std (correction),
// logsumexp, softmax/log_softmax and the scans cumsum/cumprod. Like sum (ReduceOps.cpp), the input is viewed
// with the kept dims first and the reduced dims last, made contiguous, and each row is
// reduced on its own.
#include <array>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>

#include <tcore/ops/all_native.h>
#include <tcore/ops/amax_native.h>
#include <tcore/ops/amin_native.h>
#include <tcore/ops/any_native.h>
#include <tcore/ops/argmax_native.h>
#include <tcore/ops/argmin_native.h>
#include <tcore/ops/cumprod_native.h>
#include <tcore/ops/cumsum_native.h>
#include <tcore/ops/_logcumsumexp_native.h>
#include <tcore/ops/_causal_softmax_native.h>
#include <tcore/ops/_log_softmax_backward_data_native.h>
#include <tcore/ops/_softmax_backward_data_native.h>
#include <tcore/ops/log_softmax_native.h>
#include <tcore/ops/logsumexp_native.h>
#include <tcore/ops/max_native.h>
#include <tcore/ops/min_native.h>
#include <tcore/ops/prod_native.h>
#include <tcore/ops/softmax_native.h>
#include <tcore/ops/std_native.h>
#include <tcore/ops/var_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Math.h"
#include "native/cpu/VecMath.h"
#include "native/cpu/Reduce.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// out[r] = f(row r, inner) for every row; Out is the result element type.
template <typename T, typename Out, typename F>
Tensor per_row(const Rows& rows, ScalarType out_dtype, F f) {
  Tensor result = empty_cpu(rows.shape, out_dtype);
  const T* in = rows.data.template data_ptr<T>();
  Out* out = result.template data_ptr<Out>();
  for_each_row(rows.outer, rows.inner, [&](int64_t r) { out[r] = f(in + r * rows.inner, rows.inner); });
  return result;
}

// The same into `result`, a contiguous tensor of rows.outer elements of type Out.
template <typename T, typename Out, typename F>
void per_row_into(const Tensor& result, const Rows& rows, F f) {
  const T* in = rows.data.template data_ptr<T>();
  Out* out = result.template data_ptr<Out>();
  for_each_row(rows.outer, rows.inner, [&](int64_t r) { out[r] = f(in + r * rows.inner, rows.inner); });
}

template <typename T>
bool nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// The position of the largest (Greater) or smallest element of a row; NaN wins, first one on ties.
template <bool Greater, typename T>
int64_t arg_extreme_scalar(const T* row, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) {
    if (nan(row[best])) break;
    if (nan(row[i]) || (Greater ? row[i] > row[best] : row[i] < row[best])) best = i;
  }
  return best;
}

// The element types of the vector loops below (arg_extreme_vector's positions have their width:
// int32 for float and int32, int64 for double and int64; prod_row's integer products wrap alike).
template <typename T>
constexpr bool kVectorLanes = (std::is_floating_point_v<T> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);

// The same in one pass of vectors for those element types (kVectorLanes): each lane of
// four registers keeps its best value and where it was, replaced only by a strictly better value
// or by a first NaN (`!(v <= best)` is true for both; a NaN best is never replaced), so a lane
// keeps the first of its equal values. The lanes are then merged by value, ties to the smaller
// position, and the tail (fewer than four registers) follows by the scalar rule.

template <bool Greater, typename T>
int64_t arg_extreme_vector(const T* row, int64_t n) {
  using Pos = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  constexpr int64_t W = kVectorBytes / sizeof(T);
  typedef T V __attribute__((vector_size(kVectorBytes)));
  typedef Pos P __attribute__((vector_size(kVectorBytes)));
  V best[4];
  P where[4], iota;
  for (int64_t j = 0; j < W; ++j) iota[j] = static_cast<Pos>(j);
  for (int k = 0; k < 4; ++k) {
    std::memcpy(&best[k], row + k * W, sizeof(V));
    where[k] = iota + static_cast<Pos>(k * W);
  }
  int64_t i = 4 * W;
  for (; i + 4 * W <= n; i += 4 * W) {
    for (int k = 0; k < 4; ++k) {
      const V v = load_lanes<V>(row + i + k * W);
      // Greater: v > best, or v NaN, and best not NaN (for integers the NaN terms fold away)
      const P take = ~(Greater ? v <= best[k] : v >= best[k]) & (best[k] == best[k]);
      best[k] = take ? v : best[k];
      where[k] = take ? iota + static_cast<Pos>(i + k * W) : where[k];
    }
  }
  T m = best[0][0];
  int64_t at = where[0][0];
  for (int k = 0; k < 4; ++k) {
    for (int64_t j = 0; j < W; ++j) {
      const T v = best[k][j];
      const int64_t p = where[k][j];
      const bool better = nan(m) ? (nan(v) && p < at)
                                 : (nan(v) || (Greater ? v > m : v < m) || (v == m && p < at));
      if (better) m = v, at = p;
    }
  }
  for (; i < n && !nan(m); ++i)
    if (nan(row[i]) || (Greater ? row[i] > m : row[i] < m)) m = row[i], at = i;
  return at;
}

template <bool Greater, typename T>
int64_t arg_extreme(const T* row, int64_t n) {
  if constexpr (kVectorLanes<T>) {
    // positions held in 32-bit lanes: rows past 2^31 elements take the scalar rule
    if (n >= 8 * kVectorBytes / static_cast<int64_t>(sizeof(T)) && (sizeof(T) == 8 || n <= INT32_MAX))
      return arg_extreme_vector<Greater>(row, n);
  }
  return arg_extreme_scalar<Greater>(row, n);
}

// max(m, v) (Greater) or min, NaN if either is (a NaN m is kept: both comparisons are false); of
// scalars or of GCC vectors, lane by lane
template <bool Greater, typename T>
T pick(T m, T v) {
  return ((Greater ? v > m : v < m) | (v != v)) ? v : m;
}

// The largest (Greater) or smallest element over `dim` (all dims when empty) into result, of the
// reduced shape and self's dtype (amax/amin: their meta functions checked the dims). Inputs that
// fill memory in another order are read in place; a reduction over leading dims combines whole
// rows into the result row (four rows a pass), where rows would first copy the input transposed.
template <bool Greater>
void extreme_into(const Tensor& result, const Tensor& self, IntArrayRef dim, const char* op) {
  const Reordered ordered = in_memory_order(self, reduction_mask(dim, self.dim(), op));
  const Tensor& x = ordered.data;
  const std::vector<bool>& mask = ordered.mask;
  if (const std::optional<Columns> c = columns_of(x, mask); c && c->R > 0) {
    dispatch_dtype(self.dtype(), op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x.template data_ptr<T>();
      T* out = result.template data_ptr<T>();
      const int64_t R = c->R, K = c->K;
      constexpr int64_t kMaxChunk = 16384 / sizeof(T);  // a 16 KB accumulator
      for_each_column_block(*c, kMaxChunk, [&](int64_t o, int64_t j0, int64_t len) {
        const T* block = in + o * R * K + j0;
        T acc[kMaxChunk];  // local: the loops vectorize (the result row might alias the input)
        std::memcpy(acc, block, static_cast<size_t>(len) * sizeof(T));
        int64_t r = 1;
        if constexpr (!std::is_same_v<T, bool>) {
          // vector types: the compiler left the same loop over elements scalar, with branches (12x slower)
          constexpr int64_t W = kVectorBytes / sizeof(T);
          typedef T V __attribute__((vector_size(kVectorBytes)));
          const auto at = [](const T* p) { return load_lanes<V>(p); };
          const int64_t vlen = len / W * W;
          for (; r + 4 <= R; r += 4) {
            const T* y = block + r * K;
            for (int64_t j = 0; j < vlen; j += W) {
              const V m = pick<Greater>(pick<Greater>(at(y + j), at(y + K + j)), pick<Greater>(at(y + 2 * K + j), at(y + 3 * K + j)));
              const V a = pick<Greater>(at(acc + j), m);
              std::memcpy(acc + j, &a, sizeof a);
            }
            for (int64_t j = vlen; j < len; ++j)
              acc[j] = pick<Greater>(acc[j], pick<Greater>(pick<Greater>(y[j], y[K + j]), pick<Greater>(y[2 * K + j], y[3 * K + j])));
          }
        }
        for (; r < R; ++r)
          for (int64_t j = 0; j < len; ++j) acc[j] = pick<Greater>(acc[j], block[r * K + j]);
        std::memcpy(out + o * K + j0, acc, static_cast<size_t>(len) * sizeof(T));
      });
    });
    return;
  }
  const Rows rows = rows_for(x, mask, false, x.dtype());
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    per_row_into<T, T>(result, rows, [](const T* row, int64_t n) { return extreme_row<Greater>(row, n); });
  });
}

template <bool Greater>
Tensor extreme(const Tensor& self, const char* op) {
  const Rows rows = rows_for(self, std::vector<bool>(static_cast<size_t>(self.dim()), true), false, self.dtype());
  check_nonempty(rows, self, op);
  Tensor result = empty_cpu({}, self.dtype());
  extreme_into<Greater>(result, self, {}, op);
  return result;
}

template <bool Greater>
std::tuple<Tensor, Tensor> extreme_dim(const Tensor& self, int64_t dim, bool keepdim, const char* op) {
  const Rows rows = rows_for(self, one_dim(self, dim), keepdim, self.dtype());
  check_nonempty(rows, self, op);
  Tensor values = empty_cpu(rows.shape, self.dtype()), indices = empty_cpu(rows.shape, ScalarType::Long);
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = rows.data.template data_ptr<T>();
    T* v = values.template data_ptr<T>();
    int64_t* ix = indices.template data_ptr<int64_t>();
    for_each_row(rows.outer, rows.inner, [&](int64_t r) {
      const int64_t best = arg_extreme<Greater>(in + r * rows.inner, rows.inner);
      v[r] = in[r * rows.inner + best];
      ix[r] = best;
    });
  });
  return {values, indices};
}

// The position of the extreme element over `dim` (all dims, flattened, when none) into result, an
// int64 tensor of the reduced shape (argmax/argmin: their meta functions checked the dims).
template <bool Greater>
void arg_extreme_into(const Tensor& result, const Tensor& self, std::optional<int64_t> dim, const char* op) {
  const std::vector<bool> mask = dim ? one_dim(self, *dim) : std::vector<bool>(static_cast<size_t>(self.dim()), true);
  const Rows rows = rows_for(self, mask, false, self.dtype());
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    per_row_into<T, int64_t>(result, rows, [](const T* row, int64_t n) { return arg_extreme<Greater>(row, n); });
  });
}

// all/any over the dims of mask into result (bool, of the reduced shape): read in place, or by
// whole rows over leading dims, as extreme_into does
template <bool All>
void all_any_into(const Tensor& result, const Tensor& self, const std::vector<bool>& self_mask) {
  const Reordered ordered = in_memory_order(self.dtype() == ScalarType::Bool ? self : cast(self, ScalarType::Bool), self_mask);
  const Tensor& x = ordered.data;
  const std::vector<bool>& mask = ordered.mask;
  if (const std::optional<Columns> c = columns_of(x, mask); c && c->R > 0) {
    const bool* in = x.data_ptr<bool>();
    bool* out = result.data_ptr<bool>();
    const int64_t R = c->R, K = c->K;
    for_each_column_block(*c, 16384, [&](int64_t o, int64_t j0, int64_t len) {
      const bool* block = in + o * R * K + j0;
      bool* acc = out + o * K + j0;
      std::memcpy(acc, block, static_cast<size_t>(len));
      for (int64_t r = 1; r < R; ++r)
        for (int64_t j = 0; j < len; ++j) acc[j] = All ? (acc[j] & block[r * K + j]) : (acc[j] | block[r * K + j]);
    });
    return;
  }
  const Rows rows = rows_for(x, mask, false, ScalarType::Bool);
  per_row_into<bool, bool>(result, rows, [](const bool* row, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      if (row[i] != All) return !All;
    return All;
  });
}

// out is bool or uint8 (the meta function's): computed as bool, cast on the copy into a uint8 out
// (into a uint8 out, of the input cast to uint8 first, as torch computes it: 0.25 is false there)
template <bool All>
void all_any_out(const Tensor& self, std::optional<int64_t> dim, const Tensor& out) {
  const std::vector<bool> mask = dim ? one_dim(self, *dim) : std::vector<bool>(static_cast<size_t>(self.dim()), true);
  const bool bytes = out.dtype() == ScalarType::Byte && self.dtype() != ScalarType::Byte;
  const Tensor x = bytes ? cast(self, ScalarType::Byte) : self;
  into_output(out, ScalarType::Bool, {self}, [&](const Tensor& r) { all_any_into<All>(r, x, mask); });
}

ScalarType floating_type(const Tensor& self, const char* op) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), op, "(): input dtype should be floating point, but got ", self.dtype());
  return self.dtype();
}

double correction_of(const std::optional<Scalar>& correction) {
  return correction ? correction->to_double() : 1.0;
}

// Two passes (mean, then squared deviations) in double: exact enough and simple.
Tensor variance(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim,
                bool take_sqrt, const char* op) {
  const ScalarType t = floating_type(self, op);
  const Rows rows = rows_for(self, reduction_mask(dim, self.dim(), op), keepdim, t);
  const double c = correction_of(correction);
  return dispatch_floating(t, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return per_row<T, T>(rows, t, [c, take_sqrt](const T* row, int64_t n) {
      double mean = 0;
      for (int64_t i = 0; i < n; ++i) mean += row[i];
      mean /= static_cast<double>(n);
      double ss = 0;
      for (int64_t i = 0; i < n; ++i) ss += (row[i] - mean) * (row[i] - mean);
      const double v = ss / std::max(0.0, static_cast<double>(n) - c);
      return static_cast<T>(take_sqrt ? std::sqrt(v) : v);
    });
  });
}

// The scans of `outer` contiguous rows of `inner` elements, floats accumulated in double (as torch
// does on the CPU: float32 partial sums drift, 0.07 off after 100k normal values), each row in its
// own order (torch's results, bit for bit). Eight rows are scanned side by side, eight independent
// chains of additions (or products) hiding the adder's latency, into a small buffer in L1 copied
// out a row at a time. cumsum of 4096² float32 at one thread: 18.4 ms a row at a time, 11.7 this
// way; 30 storing straight to the eight rows in turn; slower still with 16 rows, or with the block
// converted to double by vectors first (measured on a standalone copy).
template <bool Product, typename T>
void scan_rows(const T* in, T* out, int64_t outer, int64_t inner) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
  constexpr int64_t G = 8, B = 256;  // rows side by side; columns a block (G x B of T in L1)
  const auto step = [](Acc acc, T v) {
    return Product ? static_cast<Acc>(acc * static_cast<Acc>(v)) : static_cast<Acc>(acc + static_cast<Acc>(v));
  };
  const int64_t groups = (outer + G - 1) / G;
  for_each_row(groups, G * inner, [&](int64_t g) {
    const int64_t r0 = g * G;
    const T* x = in + r0 * inner;
    T* y = out + r0 * inner;
    if (r0 + G <= outer) {
      Acc acc[G];
      T block[G][B];
      for (auto& a : acc) a = Product ? Acc(1) : Acc(0);
      for (int64_t i0 = 0; i0 < inner; i0 += B) {
        const int64_t len = std::min(B, inner - i0);
        for (int64_t i = 0; i < len; ++i) {
          for (int64_t k = 0; k < G; ++k) {
            acc[k] = step(acc[k], x[k * inner + i0 + i]);
            block[k][i] = static_cast<T>(acc[k]);
          }
        }
        for (int64_t k = 0; k < G; ++k) std::memcpy(y + k * inner + i0, block[k], static_cast<size_t>(len) * sizeof(T));
      }
      return;
    }
    for (int64_t r = r0; r < outer; ++r, x += inner, y += inner) {
      Acc acc = Product ? Acc(1) : Acc(0);
      for (int64_t i = 0; i < inner; ++i) y[i] = static_cast<T>(acc = step(acc, x[i]));
    }
  });
}

// the scan of self along dim, in dtype t, into result (contiguous, self's sizes, of dtype t),
// through rows_out / write_rows_back (Reduce.h)
template <bool Product>
void scan_into(const Tensor& result, const Tensor& self, int64_t dim, ScalarType t, const char* op) {
  const std::vector<bool> mask = one_dim(self, dim);
  const Rows rows = rows_for(self, mask, true, t);
  const Tensor scanned = rows_out(result, mask, t);
  dispatch_dtype(t, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    scan_rows<Product>(rows.data.template data_ptr<T>(), scanned.template data_ptr<T>(), rows.outer, rows.inner);
  });
  write_rows_back(result, scanned, mask);
}

// out's dtype is the meta function's (dtype=, integers as int64...): the scan runs in compute_dtype
template <bool Product>
void scan_out(const Tensor& self, int64_t dim, const Tensor& out, const char* op) {
  const ScalarType t = compute_dtype(out);
  into_output(out, t, {self}, [&](const Tensor& r) { scan_into<Product>(r, self, dim, t, op); });
}

}  // namespace

namespace {
// The product of a contiguous row in T (as torch: float32 products in float32): four registers of
// lanes, then the lanes (a row at a time, 3.5x slower: each multiply waited for the last). Integer
// products wrap the same in any order.
template <typename T>
T prod_row(const T* row, int64_t n) {
  int64_t i = 0;
  T acc = T(1);
  if constexpr (kVectorLanes<T>) {
    constexpr int64_t W = kVectorBytes / sizeof(T);
    typedef T V __attribute__((vector_size(kVectorBytes)));
    if (n >= 4 * W) {
      V lanes[4];
      for (auto& l : lanes)
        for (int64_t j = 0; j < W; ++j) l[j] = T(1);
      for (; i + 4 * W <= n; i += 4 * W) {
        for (int k = 0; k < 4; ++k) {
          lanes[k] *= load_lanes<V>(row + i + k * W);
        }
      }
      const V all = (lanes[0] * lanes[1]) * (lanes[2] * lanes[3]);
      for (int64_t j = 0; j < W; ++j) acc = static_cast<T>(acc * all[j]);
    }
  }
  for (; i < n; ++i) acc = static_cast<T>(acc * row[i]);
  return acc;
}

// the product over the dims of mask, in dtype t, into result (contiguous, of the reduced shape)
void product_into(const Tensor& result, const Tensor& self, const std::vector<bool>& mask, ScalarType t) {
  const Rows rows = rows_for(self, mask, false, t);
  dispatch_dtype(t, "prod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    per_row_into<T, T>(result, rows, [](const T* row, int64_t n) { return prod_row(row, n); });
  });
}

}  // namespace

// out's dtype is the meta function's; the product runs in compute_dtype
TCORE_IMPL_FUNC(prod_out)(const Tensor& self, int64_t dim, bool, std::optional<ScalarType>, const Tensor& out) {
  const ScalarType t = compute_dtype(out);
  const std::vector<bool> mask = one_dim(self, dim);
  into_output(out, t, {self}, [&](const Tensor& r) { product_into(r, self, mask, t); });
}

// float16/bfloat16 inputs compute in float32 (widen); the results are cast back on the copy.
TCORE_IMPL_FUNC(amax_out)(const Tensor& self, IntArrayRef dim, bool, const Tensor& out) {
  const Tensor x = widen(self) ? f32(self) : self;
  into_output(out, x.dtype(), {self}, [&](const Tensor& r) { extreme_into<true>(r, x, dim, "amax"); });
}
TCORE_IMPL_FUNC(amin_out)(const Tensor& self, IntArrayRef dim, bool, const Tensor& out) {
  const Tensor x = widen(self) ? f32(self) : self;
  into_output(out, x.dtype(), {self}, [&](const Tensor& r) { extreme_into<false>(r, x, dim, "amin"); });
}
Tensor max(const Tensor& self) {
  if (widen(self)) return cast(max(f32(self)), self.dtype());
  return extreme<true>(self, "max");
}
Tensor min(const Tensor& self) {
  if (widen(self)) return cast(min(f32(self)), self.dtype());
  return extreme<false>(self, "min");
}
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  if (widen(self)) {
    auto [values, indices] = max(f32(self), dim, keepdim);
    return {cast(values, self.dtype()), indices};
  }
  return extreme_dim<true>(self, dim, keepdim, "max");
}
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  if (widen(self)) {
    auto [values, indices] = min(f32(self), dim, keepdim);
    return {cast(values, self.dtype()), indices};
  }
  return extreme_dim<false>(self, dim, keepdim, "min");
}
TCORE_IMPL_FUNC(argmax_out)(const Tensor& self, std::optional<int64_t> dim, bool, const Tensor& out) {
  const Tensor x = widen(self) ? f32(self) : self;
  into_output(out, ScalarType::Long, {self}, [&](const Tensor& r) { arg_extreme_into<true>(r, x, dim, "argmax"); });
}
TCORE_IMPL_FUNC(argmin_out)(const Tensor& self, std::optional<int64_t> dim, bool, const Tensor& out) {
  const Tensor x = widen(self) ? f32(self) : self;
  into_output(out, ScalarType::Long, {self}, [&](const Tensor& r) { arg_extreme_into<false>(r, x, dim, "argmin"); });
}

TCORE_IMPL_FUNC(all_all_out)(const Tensor& self, const Tensor& out) { all_any_out<true>(self, std::nullopt, out); }
TCORE_IMPL_FUNC(all_out)(const Tensor& self, int64_t dim, bool, const Tensor& out) { all_any_out<true>(self, dim, out); }
TCORE_IMPL_FUNC(any_all_out)(const Tensor& self, const Tensor& out) { all_any_out<false>(self, std::nullopt, out); }
TCORE_IMPL_FUNC(any_out)(const Tensor& self, int64_t dim, bool, const Tensor& out) { all_any_out<false>(self, dim, out); }

Tensor var(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  if (widen(self)) return cast(var(f32(self), dim, correction, keepdim), self.dtype());
  return variance(self, dim, correction, keepdim, false, "var");
}
Tensor std(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  if (widen(self)) return cast(std(f32(self), dim, correction, keepdim), self.dtype());
  return variance(self, dim, correction, keepdim, true, "std");
}

// max-shifted, so that large inputs do not overflow; integer inputs compute in float32.
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  if (widen(self)) return cast(logsumexp(f32(self), dim, keepdim), self.dtype());
  const ScalarType t = is_floating(self.dtype()) ? self.dtype() : default_float_dtype();
  const Rows rows = rows_for(self, reduction_mask(dim, self.dim(), "logsumexp"), keepdim, t);
  return dispatch_floating(t, "logsumexp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return per_row<T, T>(rows, t, [](const T* row, int64_t n) {
      if (n == 0) return -std::numeric_limits<T>::infinity();
      const T m = max_row(row, n);
      if (std::isinf(m)) return m;
      double s = 0;
      if constexpr (vec::supports<T>) {
        s = vec::exp_shifted_sum<false>(static_cast<T*>(nullptr), row, m, n);  // SLEEF's vector exp, summed
      } else {
        for (int64_t i = 0; i < n; ++i) s += std::exp(static_cast<double>(row[i] - m));
      }
      return static_cast<T>(m + std::log(s));
    });
  });
}

TCORE_IMPL_FUNC(cumsum_out)(const Tensor& self, int64_t dim, std::optional<ScalarType>, const Tensor& out) {
  scan_out<false>(self, dim, out, "cumsum");
}
TCORE_IMPL_FUNC(cumprod_out)(const Tensor& self, int64_t dim, std::optional<ScalarType>, const Tensor& out) {
  scan_out<true>(self, dim, out, "cumprod");
}

// softmax and log_softmax along one dim: max-shifted, accumulated in double; the rows are
// laid out like the scans (the dim last) and written back in the input's order.
namespace {
// into result (contiguous, self's sizes, of the floating dtype t)
// f(out, rows of the inputs, n) for every row along dim: the inputs' rows laid out as rows_for's (the
// dim last, copied when it is not), result's (contiguous, its shape, dtype t) written back in its order.
template <typename F, typename... Inputs>
void rows_along(const Tensor& result, int64_t dim, ScalarType t, const char* op, const F& f, const Inputs&... inputs) {
  const std::vector<bool> mask = one_dim(result, dim);
  const std::array<Rows, sizeof...(Inputs)> rows{rows_for(inputs, mask, true, t)...};
  const Tensor rowwise = rows_out(result, mask, t);
  dispatch_floating(t, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = rowwise.template data_ptr<T>();
    const int64_t n = rows[0].inner;
    if (n == 0) return;
    for_each_row(rows[0].outer, n, [&](int64_t r) {
      std::apply([&](const auto&... in) { f(out + r * n, (in.data.template data_ptr<T>() + r * n)..., n); }, rows);
    });
  });
  write_rows_back(result, rowwise, mask);
}

// softmax (log_softmax) of a row of n: e^(x - m) into y and their sum in one pass
// (vec::exp_shifted_sum: float32's exponential inline, float64's SLEEF's; log_softmax only sums);
// without SLEEF, a polynomial the compiler vectorizes for float32
// Finish: whether softmax's y gets its last pass (y * 1/s) here; without, the caller multiplies by
// the returned scale in its own pass (log_softmax finishes always, and returns 1).
template <bool Log, typename T>
T softmax_row(T* y, const T* x, int64_t n, bool finish = true) {
  const T m = max_row(x, n);
  double s;
  if constexpr (vec::supports<T>) {
    s = vec::exp_shifted_sum<!Log>(y, x, m, n);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, float>) y[i] = exp_vectorizable(x[i] - m);
      else y[i] = std::exp(x[i] - m);
    }
    s = sum_row(y, n);
  }
  if (Log) {  // (x - m) - log s, as torch's: m + log s first lost the low bits of x - m for a large m
    const T log_sum = static_cast<T>(std::log(s));
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - log_sum;
    return T(1);
  } else {
    const T inv = static_cast<T>(1.0 / s);
    if (finish) for (int64_t i = 0; i < n; ++i) y[i] *= inv;
    return inv;
  }
}

// into result (contiguous, self's sizes, of the floating dtype t)
template <bool Log>
void softmax_into(const Tensor& result, const Tensor& self, int64_t dim, ScalarType t, const char* op) {
  rows_along(result, dim, t, op, [](auto* y, const auto* x, int64_t n) { softmax_row<Log>(y, x, n); }, self);
}

// softmax of each row's first i + 1 elements (row i of its (L, S) matrix), zeros after them: the
// masked entries are neither read nor exponentiated (masking the scores first took a pass of its
// own, and softmax then exponentiated -inf)
void causal_softmax_into(const Tensor& out, const Tensor& x) {
  const int64_t L = x.sizes()[x.dim() - 2], S = x.sizes().back();
  const int64_t rows = S == 0 ? 0 : x.numel() / S;
  dispatch_floating(x.dtype(), "_causal_softmax", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = x.template data_ptr<T>();
    T* o = out.template data_ptr<T>();
    for_each_row(rows, S, [&](int64_t r) {
      const int64_t n = std::min<int64_t>(S, r % L + 1);
      softmax_row<false>(o + r * S, in + r * S, n);
      std::fill(o + r * S + n, o + (r + 1) * S, T(0));
    });
  });
}

// out's dtype is the meta function's; computed in compute_dtype (float16/bfloat16 rows along the
// last dim converted row by row: Reduce.h's reduced_float_rows)
template <bool Log>
void softmax_out(const Tensor& self, int64_t dim, const Tensor& out, const char* op) {
  const ScalarType t = compute_dtype(out);
  // float16/bfloat16 rows: softmax's scale applied as the row is rounded
  if (self.dim() > 0 && wrap_dim(dim, self.dim()) == self.dim() - 1 &&
      reduced_float_rows(out, self, [n = self.sizes().back()](float* y, const float* x, int64_t) {
        return std::make_pair(static_cast<const float*>(y), softmax_row<Log>(y, x, n, /*finish=*/false));
      })) {
    out.bump_version();
    return;
  }
  into_output(out, t, {self}, [&](const Tensor& r) { softmax_into<Log>(r, self, dim, t, op); });
}
}  // namespace

// Their backwards along the dim, per row with g the gradient and y the output: softmax's
// y (g - sum(g y)), log_softmax's g - e^y sum(g): one pass for the sum, one for the result (the
// composite's four to five). The result in input_dtype (the forward's input's, as torch's).
namespace {
template <bool Log>
Tensor softmax_backward(const Tensor& grad, const Tensor& output, int64_t dim, ScalarType input_dtype, const char* op) {
  TCORE_CHECK_VALUE(grad.sizes().vec() == output.sizes().vec(), op, ": grad_output ", shape_str(grad.sizes()),
                    " and output ", shape_str(output.sizes()), " differ");
  TCORE_CHECK_TYPE(is_floating(output.dtype()) && is_floating(input_dtype), op, ": floating dtypes only, got ",
                   to_string(output.dtype()));
  const ScalarType t = compute_dtype(output);
  const Tensor result = empty_cpu(output.sizes(), t);
  rows_along(result, dim, t, op, [](auto* o, const auto* gr, const auto* yr, int64_t n) {
    using T = std::remove_pointer_t<decltype(o)>;
    if constexpr (Log) {
      const T s = static_cast<T>(sum_row(gr, n));
      if constexpr (vec::supports<T>) {
        vec::map2_with(o, gr, yr, n, 1, 1, [s](auto gv, auto yv) { return gv - vec::Exp::apply(yv) * s; });
      } else {
        for (int64_t i = 0; i < n; ++i) o[i] = gr[i] - std::exp(yr[i]) * s;
      }
    } else {
      const T s = static_cast<T>(sum_rows_of([](auto gv, auto yv) { return gv * yv; }, n, gr, yr));
      for (int64_t i = 0; i < n; ++i) o[i] = yr[i] * (gr[i] - s);
    }
  }, grad, output);
  return cast(result, input_dtype);
}
}  // namespace

Tensor _causal_softmax(const Tensor& self) {
  check_causal_softmax(self);
  const ScalarType t = opmath_type(self.dtype());  // float16/bfloat16 in float32, rounded once
  const Tensor x = contiguous_copy(cast(self, t));
  const Tensor out = empty_cpu(self.sizes(), t);
  causal_softmax_into(out, x);
  return t == self.dtype() ? out : cast(out, self.dtype());
}

Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return softmax_backward<false>(grad_output, output, dim, input_dtype, "_softmax_backward_data");
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  return softmax_backward<true>(grad_output, output, dim, input_dtype, "_log_softmax_backward_data");
}

TCORE_IMPL_FUNC(softmax_out)(const Tensor& self, int64_t dim, std::optional<ScalarType>, const Tensor& out) {
  softmax_out<false>(self, dim, out, "softmax");
}
TCORE_IMPL_FUNC(log_softmax_out)(const Tensor& self, int64_t dim, std::optional<ScalarType>, const Tensor& out) {
  softmax_out<true>(self, dim, out, "log_softmax");
}

// log(cumsum(exp(x))) along dim: a running log-add-exp in double, torch's rule (a NaN propagates;
// equal infinities stay: log(e^inf + e^inf) = inf, and -inf while every term is -inf)
Tensor _logcumsumexp(const Tensor& self, int64_t dim) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "\"logcumsumexp_out_cpu\" not implemented for '", self.dtype(), "'");
  const int64_t d = wrap_dim(dim, self.dim());
  if (self.dim() == 0) return copy_of(self);  // (log e^x)
  Tensor result = empty_cpu(self.sizes(), self.dtype());
  rows_along(result, d, self.dtype(), "logcumsumexp", [](auto* y, const auto* x, int64_t n) {
    using T = std::remove_pointer_t<decltype(y)>;
    double acc = -std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(x[i]);
      const double lo = std::min(acc, v), hi = std::max(acc, v);
      if (std::isnan(v) || std::isnan(acc)) acc = std::numeric_limits<double>::quiet_NaN();
      else if (lo != hi || std::isfinite(lo)) acc = hi + std::log1p(std::exp(lo - hi));
      else acc = v;  // equal infinities
      y[i] = static_cast<T>(acc);
    }
  }, self);
  return result;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
