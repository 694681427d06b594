#pragma once
// The one elementwise loop of the CPU kernels. Its output may not overlap itself
// (assert_no_internal_overlap), as PyTorch's TensorIterator refuses.
//
// Operands (output first) are viewed with the output's shape: broadcast dims get
// stride 0. Adjacent dims that are contiguous for every operand are merged, so a
// contiguous tensor becomes one 1-D run; the innermost run is handed to the kernel
// body, whose contiguous branch the compiler vectorizes.
#include "tcore/core/CPUCapability.h"
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <memory>
#include <new>
#include <vector>

#include "native/TensorUtils.h"
#include "native/cpu/Parallel.h"
#include "tcore/core/Tensor.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

struct LoopGeometry {
  std::vector<int64_t> shape;                 // coalesced shape, innermost last
  std::vector<std::vector<int64_t>> strides;  // [operand][dim], in bytes
  std::vector<int64_t> itemsize;              // [operand], bytes
};

// Strides of `t` seen with `shape` (which t broadcasts to), in bytes.
std::vector<int64_t> broadcast_strides(const Tensor& t, IntArrayRef shape);
// The loop over `shape` of the operands (output first), in row-major order, or with
// in_memory_order in the operands' memory order (the output's first: a transposed output is
// written along its rows), for loops whose result does not depend on the order they visit the
// elements in (elementwise kernels, copies, fills).
LoopGeometry make_geometry(IntArrayRef shape, const std::vector<const Tensor*>& operands, bool in_memory_order = false);

// A kernel's loop body as the loops see it: body(ptrs, inner, n) computes one run of n elements
// (operand k at ptrs[k], inner[k] bytes between its elements); the loops call it over m such runs,
// outer[k] bytes apart, through one indirect call (PyTorch's loop2d through c10::function_ref).
// The loops are then compiled once per operand count and capability (Loops.cpp), each kernel
// only its body, inlined and vectorized in run<B>: when every loop inlined every body, a file of
// comparisons took 47 s to compile, 6.9 s this way.
template <size_t N>
class LoopBody {
 public:
  template <typename B, typename = std::enable_if_t<!std::is_same_v<std::decay_t<B>, LoopBody>>>
  LoopBody(B&& body)  // NOLINT(google-explicit-constructor): the loops take the kernels' lambdas
      : body_(const_cast<void*>(static_cast<const void*>(std::addressof(body)))),
        run_(&run<std::remove_reference_t<B>>) {}
  void operator()(char* const* ptrs, const int64_t* inner, int64_t n, const int64_t* outer, int64_t m) const {
    run_(body_, ptrs, inner, n, outer, m);
  }
  void operator()(char* const* ptrs, const int64_t* inner, int64_t n) const { run_(body_, ptrs, inner, n, nullptr, 1); }

 private:
  template <typename B>
  static void run(void* body, char* const* ptrs, const int64_t* inner, int64_t n, const int64_t* outer, int64_t m) {
    B& b = *static_cast<B*>(body);
    std::array<char*, N> p;
    for (size_t k = 0; k < N; ++k) p[k] = ptrs[k];
    for (int64_t j = 0; j < m; ++j) {
      b(p.data(), inner, n);
      if (j + 1 < m)
        for (size_t k = 0; k < N; ++k) p[k] += outer[k];
    }
  }
  void* body_;
  void (*run_)(void*, char* const*, const int64_t*, int64_t, const int64_t*, int64_t);
};

// Calls body over every element of the loop, innermost runs two dims at a time.
template <size_t N>
void loop_nd(const LoopGeometry& g, std::array<char*, N> base, const LoopBody<N>& body);
// loop_nd over the elements [begin, end) of the loop's row-major order only.
template <size_t N>
void loop_nd_range(const LoopGeometry& g, std::array<char*, N> base, int64_t begin, int64_t end,
                   const LoopBody<N>& body);
// loop_nd split across threads (parallel_for) when the loop is large; the body must not
// throw and must write only its own elements. `elementwise`: the body computes output element i
// from input elements i only, through the pointers it is given, and writes every output element
// (the pointers may then be a buffer's: tiled_loop_2d in Loops.cpp).
template <size_t N>
void parallel_loop_nd(const LoopGeometry& g, std::array<char*, N> base, const LoopBody<N>& body,
                      bool elementwise = false);

// out[i] = f(a[i]) with Out/In element types; run(o, x, n) computes a contiguous run.
template <typename Out, typename In, typename F, typename Run>
void unary_loop_runs(const Tensor& out, const Tensor& a, F f, Run run) {
  assert_no_internal_overlap(out);
  assert_no_partial_overlap(out, a);
  const LoopGeometry g = make_geometry(out.sizes(), {&out, &a}, /*in_memory_order=*/true);
  parallel_loop_nd<2>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr())},
             [&](char** p, const int64_t* s, int64_t n) {
               if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
                 run(reinterpret_cast<Out*>(p[0]), reinterpret_cast<const In*>(p[1]), n);
               } else {
                 for (int64_t i = 0; i < n; ++i)
                   *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
               }
             }, /*elementwise=*/true);
}

// out[i] = f(a[i]) with Out/In element types (the contiguous loop is the one that vectorizes).
template <typename Out, typename In, typename F>
void unary_loop(const Tensor& out, const Tensor& a, F f) {
  unary_loop_runs<Out, In>(out, a, f, [&f](Out* o, const In* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
  });
}

// A binary functor may compute contiguous runs itself, with vector code the compiler would not
// write (SLEEF's fmod): f.runs(o, x, y, n, x_step, y_step), each step 1, or 0 for a broadcast
// operand (a backward's grad_output of sum(): one value expanded).
template <typename F, typename = void>
struct HasRuns : std::false_type {};
template <typename F>
struct HasRuns<F, std::void_t<decltype(&F::runs)>> : std::true_type {};

// out[i] = f(a[i], b[i]): inputs of type In, output of type Out.
template <typename Out, typename In, typename F>
void binary_loop_to(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  assert_no_internal_overlap(out);
  assert_no_partial_overlap(out, a);
  assert_no_partial_overlap(out, b);
  const LoopGeometry g = make_geometry(out.sizes(), {&out, &a, &b}, /*in_memory_order=*/true);
  parallel_loop_nd<3>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr()), static_cast<char*>(b.data_ptr())},
             [&](char** p, const int64_t* s, int64_t n) {
               Out* o = reinterpret_cast<Out*>(p[0]);
               const In* x = reinterpret_cast<const In*>(p[1]);
               const In* y = reinterpret_cast<const In*>(p[2]);
               constexpr int64_t eo = sizeof(Out), e = sizeof(In);
               if constexpr (HasRuns<F>::value) {
                 if (s[0] == eo && (s[1] == e || s[1] == 0) && (s[2] == e || s[2] == 0)) {
                   return f.runs(o, x, y, n, s[1] == 0 ? 0 : 1, s[2] == 0 ? 0 : 1);
                 }
               }
               if (s[0] == eo && s[1] == e && s[2] == e) {
                 for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
               } else if (s[0] == eo && s[1] == e && s[2] == 0) {
                 const In yv = *y;
                 for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
               } else if (s[0] == eo && s[1] == 0 && s[2] == e) {
                 const In xv = *x;
                 for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
               } else {
                 for (int64_t i = 0; i < n; ++i)
                   *reinterpret_cast<Out*>(p[0] + i * s[0]) =
                       f(*reinterpret_cast<const In*>(p[1] + i * s[1]), *reinterpret_cast<const In*>(p[2] + i * s[2]));
               }
             }, /*elementwise=*/true);
}

// out[i] = f(a[i], b[i]), all of type T.
template <typename T, typename F>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  binary_loop_to<T, T>(out, a, b, f);
}

// out[i] = c[i] ? a[i] : b[i], with a bool condition (where).
template <typename T>
void select_loop(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  assert_no_internal_overlap(out);
  for (const Tensor* in : {&cond, &a, &b}) assert_no_partial_overlap(out, *in);
  const LoopGeometry g = make_geometry(out.sizes(), {&out, &cond, &a, &b}, /*in_memory_order=*/true);
  parallel_loop_nd<4>(g,
             {static_cast<char*>(out.data_ptr()), static_cast<char*>(cond.data_ptr()),
              static_cast<char*>(a.data_ptr()), static_cast<char*>(b.data_ptr())},
             [&](char** p, const int64_t* s, int64_t n) {
               for (int64_t i = 0; i < n; ++i)
                 *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const bool*>(p[1] + i * s[1])
                                                              ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                                                              : *reinterpret_cast<const T*>(p[3] + i * s[3]);
             }, /*elementwise=*/true);
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
