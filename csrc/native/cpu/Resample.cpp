// _resample: one-dimensional linear resampling along a dim, out[.., j, ..] = sum over taps k of
// weights[k, j] * self[.., indices[k, j], ..], and its adjoint. interpolate (tcore/nn/functional.py)
// computes torch's source indices and weights for nearest, linear and cubic modes and applies
// this once per spatial dim, last dim first (torch's order of the lerps); on the CPU each output
// element is one pass over its taps, accumulated in float32 (float64 for float64), where the
// composition it replaces made a temporary per tap (bilinear upsampling was 11x torch's time).
// Other devices run the composition (native/composite/Resample.cpp).
#include <tcore/ops/_resample_backward_native.h>
#include <tcore/ops/_resample_native.h>

#include <cstring>
#include <type_traits>
#include <vector>

#include "native/Resample.h"
#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Parallel.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

struct Taps {
  int64_t count, n_out;
  Tensor indices;                // contiguous int64 on the host, (count, n_out)
  const int64_t* index;          // its data
  std::vector<double> weights;   // (count, n_out); empty when no weights were given (each 1)
  double weight(int64_t k) const { return weights.empty() ? 1.0 : weights[k]; }
};

Taps read_taps(const Tensor& indices, const std::optional<Tensor>& weights, int64_t n_in, const char* op) {
  TCORE_CHECK(indices.dim() == 2 && indices.dtype() == ScalarType::Long, op,
              "(): indices must be a 2-D int64 tensor (taps, output size), got ", shape_str(indices.sizes()), " ",
              to_string(indices.dtype()));
  const bool weighted = weights && weights->defined();
  if (weighted) {
    TCORE_CHECK(weights->sizes().vec() == indices.sizes().vec(), op, "(): weights ", shape_str(weights->sizes()),
                " must have the shape of indices ", shape_str(indices.sizes()));
  }
  Taps t{indices.sizes()[0], indices.sizes()[1], contiguous_copy(on_device(indices, Device())), nullptr, {}};
  t.index = t.indices.data_ptr<int64_t>();
  for (int64_t k = 0; k < t.indices.numel(); ++k) {
    if (t.index[k] < 0 || t.index[k] >= n_in) index_out_of_bounds(t.index[k], 0, n_in, op);
  }
  if (weighted) {
    const Tensor w = contiguous_copy(cast(on_device(*weights, Device()), ScalarType::Double));
    t.weights.assign(w.data_ptr<double>(), w.data_ptr<double>() + w.numel());
  }
  return t;
}

// self seen as (outer, n, inner) around dim
struct Around {
  int64_t outer = 1, n = 1, inner = 1;
};
Around around(IntArrayRef sizes, int64_t d) {
  Around a;
  for (int64_t k = 0; k < static_cast<int64_t>(sizes.size()); ++k) {
    if (k < d) a.outer *= sizes[k];
    else if (k == d) a.n = sizes[k];
    else a.inner *= sizes[k];
  }
  return a;
}

// floating tensors, or integer ones without weights (nearest of uint8, as torch's)
// (and bool with a single tap: a gather, circular padding's)
void check_resample_dtype(const Tensor& t, const std::optional<Tensor>& weights, int64_t taps, const char* op) {
  const bool weighted = weights && weights->defined();
  TCORE_CHECK_TYPE(is_floating(t.dtype()) || (!weighted && (t.dtype() != ScalarType::Bool || taps == 1)), op,
                   "(): expected a floating tensor (an integer one without weights, a bool one with a single tap), "
                   "got ", to_string(t.dtype()));
}

// w * v, and v for bool (a single tap of weight 1: a copy)
template <typename T>
inline T tap(T w, T v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else return static_cast<T>(w * v);
}

// One unweighted tap (a gather: padding's, nearest's) as runs of consecutive source indices,
// each (first output, first source, length): a row is then a few copies (reflect padding of a
// 256-wide row: three runs; element by element the last-dim gather was 3.5x torch's padding).
struct Run {
  int64_t out, src, len;
};
std::vector<Run> runs_of(const int64_t* idx, int64_t m) {
  std::vector<Run> runs;
  for (int64_t j = 0; j < m; ++j) {
    if (!runs.empty() && runs.back().src + runs.back().len == idx[j]) {
      ++runs.back().len;
    } else {
      runs.push_back({j, idx[j], 1});
    }
  }
  return runs;
}

// runs f with the type tag of t: bool, or the numeric types (float16/bfloat16 never: they compute in float32)
template <typename F>
void dispatch_resample(ScalarType t, const char* op, const F& f) {
  if (t == ScalarType::Bool) f(type_tag<bool>{});
  else dispatch_numeric(t, op, f);
}

}  // namespace

Tensor _resample(const Tensor& self, int64_t dim, const Tensor& indices, const std::optional<Tensor>& weights) {
  check_resample_dtype(self, weights, indices.dim() == 2 ? indices.sizes()[0] : 0, "_resample");
  const int64_t d = wrap_dim(dim, self.dim());
  const Around a = around(self.sizes(), d);
  const Taps taps = read_taps(indices, weights, a.n, "_resample");
  std::vector<int64_t> shape = self.sizes().vec();
  shape[d] = taps.n_out;
  const ScalarType t = opmath_type(self.dtype());
  const Tensor x = contiguous_copy(cast(self, t));
  Tensor out = empty_cpu(shape, t);
  dispatch_resample(t, "_resample", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.template data_ptr<T>();
    T* dst = out.template data_ptr<T>();
    const int64_t* idx = taps.index;
    const int64_t K = taps.count, m = taps.n_out;
    const int64_t work = std::max<int64_t>(m * a.inner * K, 1);
    // (runs of a few elements, nearest upsampling's, stay element by element)
    const std::vector<Run> runs = K == 1 && taps.weights.empty() ? runs_of(idx, m) : std::vector<Run>{};
    const bool gather = !runs.empty() && static_cast<int64_t>(runs.size()) * 8 <= m * a.inner;
    const std::vector<T> w = [&] {  // (const: a bool one's elements read as bool)
      std::vector<T> v;
      for (int64_t k = 0; !gather && k < K * m; ++k) v.push_back(static_cast<T>(taps.weight(k)));
      return v;
    }();
    parallel_for(0, a.outer, std::max<int64_t>(1, kGrainSize / work), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const T* in = src + o * a.n * a.inner;
        T* res = dst + o * m * a.inner;
        if (gather) {  // whole runs of rows (of `inner` elements) copied
          for (const Run& r : runs) {
            const T* from = in + r.src * a.inner;
            T* to = res + r.out * a.inner;
            const int64_t count = r.len * a.inner;
            if (count >= 16) {
              std::memcpy(to, from, static_cast<size_t>(count) * sizeof(T));
            } else {
              for (int64_t i = 0; i < count; ++i) to[i] = from[i];
            }
          }
          continue;
        }
        if (a.inner == 1) {  // along the last dim: each output a sum over its taps
          for (int64_t j = 0; j < m; ++j) {
            T acc = tap(w[j], in[idx[j]]);
            for (int64_t k = 1; k < K; ++k) acc = static_cast<T>(acc + tap(w[k * m + j], in[idx[k * m + j]]));
            res[j] = acc;
          }
          continue;
        }
        for (int64_t j = 0; j < m; ++j) {  // rows of `inner` contiguous elements
          T* row = res + j * a.inner;
          const T w0 = w[j];
          const T* in0 = in + idx[j] * a.inner;
          for (int64_t i = 0; i < a.inner; ++i) row[i] = tap(w0, in0[i]);
          for (int64_t k = 1; k < K; ++k) {
            const T wk = w[k * m + j];
            const T* ink = in + idx[k * m + j] * a.inner;
            for (int64_t i = 0; i < a.inner; ++i) row[i] = static_cast<T>(row[i] + tap(wk, ink[i]));
          }
        }
      }
    });
  });
  return t == self.dtype() ? out : cast(out, self.dtype());
}

Tensor _resample_backward(const Tensor& grad, int64_t dim, IntArrayRef input_sizes, const Tensor& indices,
                          const std::optional<Tensor>& weights) {
  check_resample_dtype(grad, weights, indices.dim() == 2 ? indices.sizes()[0] : 0, "_resample_backward");
  const int64_t d = wrap_dim(dim, grad.dim());
  const std::vector<int64_t> shape = resample_input_shape(grad, d, input_sizes);
  const int64_t input_size = shape[d];
  const Taps taps = read_taps(indices, weights, input_size, "_resample_backward");
  const Around a = around(grad.sizes(), d);
  TCORE_CHECK(a.n == taps.n_out, "_resample_backward(): grad has ", a.n, " elements along dim ", d, ", the taps ",
              taps.n_out);
  const ScalarType t = opmath_type(grad.dtype());
  const Tensor g = contiguous_copy(cast(grad, t));
  Tensor out = empty_cpu(shape, t);
  dispatch_resample(t, "_resample_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = g.template data_ptr<T>();
    T* dst = out.template data_ptr<T>();
    // each outer slice on one thread: the taps of several outputs add into one input row
    parallel_for(0, a.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(a.n * a.inner, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t o = b; o < e; ++o) {
                     T* slice = dst + o * input_size * a.inner;
                     std::fill(slice, slice + input_size * a.inner, T(0));
                     for (int64_t j = 0; j < taps.n_out; ++j) {
                       const T* in = src + (o * a.n + j) * a.inner;
                       for (int64_t k = 0; k < taps.count; ++k) {
                         const T w = static_cast<T>(taps.weight(k * taps.n_out + j));
                         T* row = slice + taps.index[k * taps.n_out + j] * a.inner;
                         for (int64_t i = 0; i < a.inner; ++i) row[i] = static_cast<T>(row[i] + tap(w, in[i]));
                       }
                     }
                   }
                 });
  });
  return t == grad.dtype() ? out : cast(out, grad.dtype());
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
