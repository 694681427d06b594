// batch_norm's kernels: the forward forms of PyTorch's _native_batch_norm_legit family (pure
// functions: the updated running statistics are outputs) and native_batch_norm_backward.
//
// The input is viewed as (N, C, S) and each channel is one task for the threads: its N
// segments of S elements are read for the mean, again for the squared deviations about it (two
// passes, no cancellation), then written normalized while the channel sits in L2 -- so a
// tensor whose channels fit in L2 is read from memory once (PyTorch's kernel reads it twice:
// all the statistics, then the output). BatchNorm1d's (N, C) (S = 1) is walked row by row over
// blocks of columns, the sums kept per column (vectorized across the channels).
// float16/bfloat16 inputs compute in float32; sums are double over float vectors (Math.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <vector>

#include <tcore/ops/_native_batch_norm_legit_functional_native.h>
#include <tcore/ops/_native_batch_norm_legit_native.h>
#include <tcore/ops/_native_batch_norm_legit_no_training_native.h>
#include <tcore/ops/native_batch_norm_backward_native.h>

#include "native/BatchNorm.h"
#include "native/TensorUtils.h"
#include "native/cpu/IntoOutput.h"
#include "native/cpu/Math.h"
#include "native/cpu/Parallel.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// Channel c's elements of an (N, C, S) contiguous tensor: the segments (i * C + c) * S, i < N.
// With S = 1 (BatchNorm1d's (N, C), a channels_last input's (N H W, C)) a channel is a column:
// every pass streams the rows in order, runs of rows on the threads, sums kept per column
// (vectorized across the channels). (Blocks of 16 columns walked row by row, a cache line per
// 1 KB row: BatchNorm1d's (8192, 256) 3.9 ms, 4.9x torch's.)
struct Channels {
  int64_t n, c, s;
  int64_t count() const { return n * s; }  // elements per channel
  int64_t at(int64_t i, int64_t ch) const { return (i * c + ch) * s; }
};

Channels channels_of(const Tensor& input) {
  const int64_t n = input.sizes()[0], c = input.sizes()[1];
  if (input.suggest_memory_format() == MemoryFormat::ChannelsLast)  // (N H W, C): a channel is a column
    return {c == 0 ? 0 : input.numel() / c, c, 1};
  return {n, c, n * c == 0 ? 0 : input.numel() / (n * c)};
}

// Runs f(c0, c1) over the channels: one channel at a time on the threads (S > 1), or every column
// at once (S = 1: channel_sums and channel_map put runs of rows on the threads).
template <typename F>
void each_block(Channels ch, const F& f) {
  if (ch.s == 1) {
    f(0, ch.c);
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(ch.count(), 1));
  parallel_for(0, ch.c, grain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) f(k, k + 1);
  });
}

constexpr int64_t kRun = 64;  // rows summed in the compute dtype's lanes before a double add

// out[c] for c in [c0, c1): the sum over channel c of f(c, a, ...) for the operands' elements
// at one place (f takes vectors or scalars).
template <typename T, typename F, typename... More>
void channel_sums(Channels ch, int64_t c0, int64_t c1, double* out, const F& f, const T* a, const More*... more) {
  if (ch.s > 1) {
    for (int64_t c = c0; c < c1; ++c) {
      double total = 0;
      for (int64_t i = 0; i < ch.n; ++i) {
        total += sum_rows_of([&](auto... v) { return f(c, v...); }, ch.s, a + ch.at(i, c), (more + ch.at(i, c))...);
      }
      out[c] = total;
    }
    return;
  }
  // columns: each run of kRun rows summed in the compute dtype's lanes (runs on the threads), the
  // runs' sums added in double in order (the same sums at any thread count)
  const int64_t width = c1 - c0, runs = (ch.n + kRun - 1) / kRun;
  std::vector<T> part(static_cast<size_t>(runs * width));
  parallel_for(0, runs, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(kRun * width, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      T* sum = part.data() + r * width - c0;
      for (int64_t c = c0; c < c1; ++c) sum[c] = T(0);
      const int64_t end = std::min(ch.n, (r + 1) * kRun);
      int64_t i = r * kRun;
      for (; i + 4 <= end; i += 4) {  // four rows a step: a quarter of the loads and stores of sum
        const int64_t r0 = i * ch.c, r1 = r0 + ch.c, r2 = r1 + ch.c, r3 = r2 + ch.c;
        for (int64_t c = c0; c < c1; ++c)
          sum[c] += (f(c, a[r0 + c], more[r0 + c]...) + f(c, a[r1 + c], more[r1 + c]...)) +
                    (f(c, a[r2 + c], more[r2 + c]...) + f(c, a[r3 + c], more[r3 + c]...));
      }
      for (; i < end; ++i) {
        const int64_t row = i * ch.c;
        for (int64_t c = c0; c < c1; ++c) sum[c] += f(c, a[row + c], more[row + c]...);
      }
    }
  });
  for (int64_t c = c0; c < c1; ++c) out[c] = 0;
  for (int64_t r = 0; r < runs; ++r)
    for (int64_t c = c0; c < c1; ++c) out[c] += static_cast<double>(part[r * width + c - c0]);
}

// out = f(c, a, ...) elementwise over the channels [c0, c1).
template <typename T, typename F, typename... More>
void channel_map(Channels ch, int64_t c0, int64_t c1, T* out, const F& f, const T* a, const More*... more) {
  if (ch.s == 1) {  // columns: the rows in order, runs of them on the threads
    parallel_for(0, ch.n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c1 - c0, 1)), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t row = i * ch.c;
        for (int64_t c = c0; c < c1; ++c) out[row + c] = f(c, a[row + c], more[row + c]...);
      }
    });
    return;
  }
  for (int64_t i = 0; i < ch.n; ++i) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t at = ch.at(i, c);
      for (int64_t j = 0; j < ch.s; ++j) out[at + j] = f(c, a[at + j], more[at + j]...);
    }
  }
}

// An operand as the kernels read it: an array of the compute dtype, contiguous, or channels_last
// for an input that suggests it (channels_of's (N H W, C) columns).
Tensor operand(const Tensor& t, ScalarType compute, MemoryFormat format = MemoryFormat::Contiguous) {
  return format == MemoryFormat::ChannelsLast ? in_format(cast(t, compute), format) : contiguous_copy(cast(t, compute));
}

// A per-channel vector (weight, bias, statistics) as a contiguous compute-dtype tensor, or undefined.
Tensor vector_of(const std::optional<Tensor>& t, ScalarType compute) {
  return t && t->defined() ? operand(*t, compute) : Tensor();
}
template <typename T>
T* ptr(const Tensor& t) {  // nullptr for an undefined (absent) tensor
  return t.defined() ? t.template data_ptr<T>() : nullptr;
}

// 1 / sqrt(var + eps) of the running variances.
template <typename T>
Tensor running_invstd(const std::optional<Tensor>& running_var, ScalarType compute, int64_t channels, double eps) {
  const Tensor rv = vector_of(running_var, compute);
  Tensor invstd = empty_cpu({channels}, compute);
  for (int64_t c = 0; c < channels; ++c)
    invstd.template data_ptr<T>()[c] = static_cast<T>(1.0 / std::sqrt(static_cast<double>(ptr<T>(rv)[c]) + eps));
  return invstd;
}

// Channel c's biased variance (into var[c]) and 1 / sqrt(var + eps) (into invstd[c]) again, in
// double, when its squared deviations about mu overflowed T's lanes with each deviation finite
// (float32 deviations past 1.8e19): each deviation scaled by the power of two 2^-e that brings the
// largest near 1 (a channel of values near 1e30 had an inf variance and an output of 0 where the
// normalized channel is finite; torch's float32 kernel gives 0 too). Math.h's inverse_std for rows.
template <typename T>
void rescaled_channel_statistics(Channels ch, int64_t c, const T* x, double mu, double eps, double* var, T* invstd) {
  double largest = 0;
  for (int64_t i = 0; i < ch.n; ++i)
    for (int64_t j = 0; j < ch.s; ++j) largest = std::max(largest, std::abs(static_cast<double>(x[ch.at(i, c) + j]) - mu));
  if (!std::isfinite(largest) || largest == 0) return;
  const int e = std::ilogb(largest);
  double scaled = 0;
  for (int64_t i = 0; i < ch.n; ++i) {
    for (int64_t j = 0; j < ch.s; ++j) {
      const double d = std::ldexp(static_cast<double>(x[ch.at(i, c) + j]) - mu, -e);
      scaled += d * d;
    }
  }
  scaled /= static_cast<double>(ch.count());
  var[c] = std::ldexp(scaled, 2 * e);  // (inf past double's range: the running variance's)
  invstd[c] = static_cast<T>(inverse_std_of_scaled(scaled, e, eps));
}

// y = (x - mean) * invstd * weight + bias, block by block, with the batch's statistics
// (training: written to mean/invstd, and the biased variances to var) or the given ones.
template <typename T>
void normalize_channels(Channels ch, const T* x, T* y, const T* w, const T* b, T* mean, T* invstd, double* var,
                        bool training, double eps) {
  const double m = static_cast<double>(ch.count());
  // the batch mean as a float and the float nearest its remainder: x - mean in two exact-ish steps
  // (a float32 mean of values near 1e4 is off by up to 5e-4, which (x - mean) would carry)
  std::vector<T> alpha(static_cast<size_t>(ch.c)), beta(static_cast<size_t>(ch.c)), mean_lo(static_cast<size_t>(ch.c));
  each_block(ch, [&](int64_t c0, int64_t c1) {
    if (training) {
      // the mean of x - (the channel's first element): sums of small numbers, accurate in the
      // float lanes however far the values sit from zero
      for (int64_t c = c0; c < c1; ++c) mean[c] = x[ch.at(0, c)];
      channel_sums(ch, c0, c1, var, [mean](int64_t c, auto v) { return v - mean[c]; }, x);
      for (int64_t c = c0; c < c1; ++c) {
        const double mu = static_cast<double>(mean[c]) + var[c] / m;
        mean[c] = static_cast<T>(mu);
        mean_lo[c] = static_cast<T>(mu - static_cast<double>(mean[c]));
      }
      channel_sums(ch, c0, c1, var, [mean](int64_t c, auto v) { return (v - mean[c]) * (v - mean[c]); }, x);
      for (int64_t c = c0; c < c1; ++c) {
        var[c] /= m;
        invstd[c] = static_cast<T>(1.0 / std::sqrt(var[c] + eps));
        if (std::isinf(var[c]))
          rescaled_channel_statistics(ch, c, x, static_cast<double>(mean[c]) + static_cast<double>(mean_lo[c]), eps, var, invstd);
      }
    }
    for (int64_t c = c0; c < c1; ++c) {
      alpha[c] = w ? invstd[c] * w[c] : invstd[c];
      beta[c] = b ? b[c] : T(0);
    }
    channel_map(ch, c0, c1, y, [&](int64_t c, T v) { return ((v - mean[c]) - mean_lo[c]) * alpha[c] + beta[c]; }, x);
  });
}

struct Forward {
  Tensor out, save_mean, save_invstd, running_mean, running_var;

  // the out= forms: the output and the saved statistics into their outs
  std::tuple<Tensor, Tensor, Tensor> write(const Tensor& out_, const Tensor& mean_, const Tensor& invstd_) const {
    write_result(out_, out, "_native_batch_norm_legit");
    write_result(mean_, save_mean, "_native_batch_norm_legit");
    write_result(invstd_, save_invstd, "_native_batch_norm_legit");
    for (const Tensor* o : {&out_, &mean_, &invstd_}) o->bump_version();  // once each, as any out=
    return {out_, mean_, invstd_};
  }
};

// The three forward operators' one kernel. Outside training the statistics are the running
// ones and the saved ones are empty (PyTorch's); in training with running statistics, their
// updates (unbiased variance) come back in running_mean/running_var.
Forward batch_norm_forward(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                           const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                           bool training, double momentum, double eps) {
  check_batch_norm(input, weight, bias, running_mean, running_var, training);
  TCORE_CHECK(input.numel() > 0, "batch_norm: input tensor must have at least one element, but got input_sizes = ",
              shape_str(input.sizes()));
  const ScalarType params = batch_norm_param_dtype(input, {&weight, &bias, &running_mean, &running_var});
  const ScalarType compute = compute_dtype(input);
  const Channels ch = channels_of(input);
  const bool has_stats = running_mean && running_mean->defined();
  const Tensor w = vector_of(weight, compute), b = vector_of(bias, compute);
  Forward r;
  dispatch_floating(compute, "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const MemoryFormat format = input.suggest_memory_format();  // channels_last stays so
    const Tensor x = operand(input, compute, format);
    Tensor y = empty_in_format(x.sizes(), compute, format);
    Tensor mean = training ? empty_cpu({ch.c}, compute) : vector_of(running_mean, compute);
    Tensor invstd = training ? empty_cpu({ch.c}, compute) : running_invstd<T>(running_var, compute, ch.c, eps);
    std::vector<double> var(static_cast<size_t>(ch.c));
    normalize_channels<T>(ch, x.template data_ptr<T>(), y.template data_ptr<T>(), ptr<T>(w), ptr<T>(b),
                          mean.template data_ptr<T>(), invstd.template data_ptr<T>(), var.data(), training, eps);
    r.out = in_format(cast(y, input.dtype()), format);
    r.save_mean = training ? cast(mean, params) : empty_cpu({0}, params);
    r.save_invstd = training ? cast(invstd, params) : empty_cpu({0}, params);
    if (!has_stats) return;
    // running = (1 - momentum) * running + momentum * batch, the variance unbiased
    const Tensor rm = vector_of(running_mean, ScalarType::Double), rv = vector_of(running_var, ScalarType::Double);
    Tensor new_mean = empty_cpu({ch.c}, ScalarType::Double), new_var = empty_cpu({ch.c}, ScalarType::Double);
    const double unbias = static_cast<double>(ch.count()) / static_cast<double>(ch.count() - 1);
    for (int64_t c = 0; c < ch.c; ++c) {
      const double old_mean = rm.template data_ptr<double>()[c], old_var = rv.template data_ptr<double>()[c];
      new_mean.template data_ptr<double>()[c] =
          training ? (1 - momentum) * old_mean + momentum * static_cast<double>(mean.template data_ptr<T>()[c]) : old_mean;
      new_var.template data_ptr<double>()[c] = training ? (1 - momentum) * old_var + momentum * var[c] * unbias : old_var;
    }
    r.running_mean = cast(new_mean, params);
    r.running_var = cast(new_var, params);
  });
  return r;
}

// The gradients, block by block: with g = grad_out and xc = x - mean over a channel's M elements,
// training: dx = (g - sum(g) / M - xc * invstd^2 * sum(g xc) / M) * invstd * weight;
// otherwise dx = g * invstd * weight; dweight = sum(g xc) * invstd, dbias = sum(g).
template <typename T>
void backward_channels(Channels ch, const T* g, const T* x, const T* w, const T* mean, const T* invstd, T* dx,
                       T* dw, T* db, bool training) {
  const double m = static_cast<double>(ch.count());
  std::vector<double> sum_g(static_cast<size_t>(ch.c)), dot(static_cast<size_t>(ch.c));
  std::vector<T> g_mean(static_cast<size_t>(ch.c)), k(static_cast<size_t>(ch.c)), scale(static_cast<size_t>(ch.c));
  each_block(ch, [&](int64_t c0, int64_t c1) {
    if (training || dw || db) {
      channel_sums(ch, c0, c1, sum_g.data(), [](int64_t, auto gv) { return gv; }, g);
      channel_sums(ch, c0, c1, dot.data(), [mean](int64_t c, auto gv, auto xv) { return gv * (xv - mean[c]); }, g, x);
    }
    for (int64_t c = c0; c < c1; ++c) {
      const double is = static_cast<double>(invstd[c]);
      if (dw) dw[c] = static_cast<T>(dot[c] * is);
      if (db) db[c] = static_cast<T>(sum_g[c]);
      scale[c] = w ? invstd[c] * w[c] : invstd[c];
      g_mean[c] = training ? static_cast<T>(sum_g[c] / m) : T(0);
      k[c] = training ? static_cast<T>(dot[c] / m * is * is) : T(0);
    }
    if (!dx) return;
    channel_map(ch, c0, c1, dx, [&](int64_t c, T gv, T xv) {
      return ((gv - g_mean[c]) - (xv - mean[c]) * k[c]) * scale[c];
    }, g, x);
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> _native_batch_norm_legit_functional(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, bool training, double momentum, double eps) {
  Forward r = batch_norm_forward(input, weight, bias, running_mean, running_var, training, momentum, eps);
  return {r.out, r.save_mean, r.save_invstd, r.running_mean, r.running_var};
}

std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_stats(const Tensor& input,
                                                                     const std::optional<Tensor>& weight,
                                                                     const std::optional<Tensor>& bias, bool training,
                                                                     double momentum, double eps) {
  Forward r = batch_norm_forward(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
  return {r.out, r.save_mean, r.save_invstd};
}

std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_out(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, bool training, double momentum, double eps, const Tensor& out,
    const Tensor& save_mean, const Tensor& save_invstd) {
  Forward r = batch_norm_forward(input, weight, bias, running_mean, running_var, training, momentum, eps);
  auto written = r.write(out, save_mean, save_invstd);  // first: a bad out leaves the statistics alone
  if (training) {
    write_result(running_mean, r.running_mean, "_native_batch_norm_legit");
    write_result(running_var, r.running_var, "_native_batch_norm_legit");
  }
  return written;
}

std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_stats_out(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, bool training,
    double momentum, double eps, const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd) {
  return batch_norm_forward(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps)
      .write(out, save_mean, save_invstd);
}

std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_training(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps) {
  Forward r = batch_norm_forward(input, weight, bias, running_mean, running_var, false, momentum, eps);
  return {r.out, r.save_mean, r.save_invstd};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  check_batch_norm(input, weight, std::nullopt, running_mean, running_var, train);
  TCORE_CHECK_VALUE(grad_out.sizes().vec() == input.sizes().vec(), "native_batch_norm_backward: grad_out of shape ",
                    shape_str(grad_out.sizes()), " for an input of shape ", shape_str(input.sizes()));
  const Channels ch = channels_of(input);
  if (train) {
    for (const auto* s : {&save_mean, &save_invstd}) {
      TCORE_CHECK(*s && (*s)->defined() && (*s)->numel() == ch.c, "native_batch_norm_backward: training needs "
                  "save_mean and save_invstd of ", ch.c, " elements");
    }
  }
  const ScalarType params = batch_norm_param_dtype(input, {&weight, &running_mean, &save_mean});
  const ScalarType compute = compute_dtype(input);
  Tensor dx, dw, db;
  if (input.numel() == 0) {
    return {output_mask[0] ? empty_cpu(input.sizes(), input.dtype()) : Tensor(),
            output_mask[1] ? zeros_cpu({ch.c}, params) : Tensor(), output_mask[2] ? zeros_cpu({ch.c}, params) : Tensor()};
  }
  dispatch_floating(compute, "batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const MemoryFormat format = input.suggest_memory_format();
    const Tensor x = operand(input, compute, format), g = operand(grad_out, compute, format);
    const Tensor w = vector_of(weight, compute);
    const Tensor mean = vector_of(train ? save_mean : running_mean, compute);
    const Tensor invstd = train ? vector_of(save_invstd, compute) : running_invstd<T>(running_var, compute, ch.c, eps);
    Tensor dx_c = output_mask[0] ? empty_in_format(x.sizes(), compute, format) : Tensor();
    Tensor dw_c = output_mask[1] ? empty_cpu({ch.c}, compute) : Tensor();
    Tensor db_c = output_mask[2] ? empty_cpu({ch.c}, compute) : Tensor();
    backward_channels<T>(ch, ptr<T>(g), ptr<T>(x), ptr<T>(w), ptr<T>(mean), ptr<T>(invstd), ptr<T>(dx_c),
                         ptr<T>(dw_c), ptr<T>(db_c), train);
    if (dx_c.defined()) dx = in_format(cast(dx_c, input.dtype()), format);
    if (dw_c.defined()) dw = cast(dw_c, params);
    if (db_c.defined()) db = cast(db_c, params);
  });
  return {dx, dw, db};
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
