"""Rewrites of CUDA calls that the target HIP lacks but can say with what it has (translate.py
applies them; tests/test_hipify_rules.py holds one test each with the exact output).

A rule applies to a call of its CUDA name when the mapping data gives that name no HIP equivalent
(or always, for the few whose arguments must change whatever the target)
for the target (AMD's tables list none for the warp `_sync` intrinsics, __syncwarp, __activemask
and __trap in any HIP version; cuGetErrorString and cublasSetMathMode came with HIP 5.4 and 6.1),
and the target is older than the rule's `until` (from then on HIP declares the name itself). The
template is written in CUDA's names, translated like the source ({0}, {1}: the call's translated
arguments; {rest}: the arguments after the first, comma-separated). A use of the name that is not
a call with the rule's number of arguments is left as it is and reported.

What the warp rules mean on AMD GPUs (documented in docs/hipify.md):
- a wavefront executes in lockstep: every active lane runs each instruction, so the `_sync`
  intrinsics' mask (the lanes that must take part) has nothing left to select among converged
  lanes; HIP's maskless __shfl*/__all/__any/__ballot operate on the active lanes, which is what
  CUDA defines for lanes named in the mask. What cannot be kept: CUDA's independent thread
  scheduling, where a `_sync` call waits for named lanes that diverged; lockstep has no such wait.
- the shuffles become hipify_shfl*(), small templates that the translation defines once at the top
  of each file that uses them: they move any value of up to 8 bytes (char, half, half2, bfloat16x2,
  float, double, ...) through HIP's int or long long shuffle, as CUDA's `_sync` shuffles accept
  those types and HIP's maskless ones (before HIP 5.7's fp16 overloads) take only int, float and
  wider built-in types;
- __ballot returns a 64-bit mask (a wavefront has 64 lanes on CDNA, 32 on RDNA): code that stores
  it in 32 bits keeps lanes 0-31 only, as code written for 32-lane warps assumes;
- __syncwarp() becomes what HIP 7's own __syncwarp does: a wavefront-scope release fence, a wave
  barrier (which also keeps the compiler from moving memory operations across it) and an acquire
  fence, so shared-memory writes of one lane are seen by the others after it, as in CUDA.
"""
from __future__ import annotations

from dataclasses import dataclass

# HIP declares the warp `_sync` intrinsics, __syncwarp and __activemask by default from 7.0
# (6.2 to 6.4: only with HIP_ENABLE_WARP_SYNC_BUILTINS defined, and with 64-bit masks only).
WARP_SYNC_DECLARED = (7, 0, 0)
SYNCWARP = ('(__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), '
            '__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront"))')


_SHUFFLE = """template <typename T>
__device__ inline T hipify_{name}(T var, {lane}, int width = warpSize) {{
  static_assert(sizeof(T) <= 8, "a warp shuffle moves at most 8 bytes");
  if (sizeof(T) == 8) {{
    long long bits;
    __builtin_memcpy(&bits, &var, sizeof(T));
    bits = __{name}(bits, {arg}, width);
    __builtin_memcpy(&var, &bits, sizeof(T));
  }} else {{
    int bits = 0;
    __builtin_memcpy(&bits, &var, sizeof(T));
    bits = __{name}(bits, {arg}, width);
    __builtin_memcpy(&var, &bits, sizeof(T));
  }}
  return var;
}}
"""
SHUFFLES = {"shfl": "int src_lane", "shfl_up": "unsigned int delta", "shfl_down": "unsigned int delta",
            "shfl_xor": "int lane_mask"}
# per-byte arithmetic on 32-bit words (SWAR): borrows kept inside each byte by its high bit
_SIMD = """__host__ __device__ inline unsigned int hipify_vsub4(unsigned int a, unsigned int b) {
  return ((a | 0x80808080u) - (b & 0x7f7f7f7fu)) ^ ((a ^ ~b) & 0x80808080u);
}
__host__ __device__ inline unsigned int hipify_vcmpne4(unsigned int a, unsigned int b) {
  unsigned int t = a ^ b;
  return (((((t & 0x7f7f7f7fu) + 0x7f7f7f7fu) | t) & 0x80808080u) >> 7) * 0xffu;
}
__host__ __device__ inline unsigned int hipify_vcmpeq4(unsigned int a, unsigned int b) {
  return ~hipify_vcmpne4(a, b);
}
"""
_BFLOAT162 = """struct alignas(4) hipify_bfloat162 {
  hip_bfloat16 x, y;
  hipify_bfloat162() = default;
  __host__ __device__ hipify_bfloat162(hip_bfloat16 a, hip_bfloat16 b) : x(a), y(b) {}
  __host__ __device__ hipify_bfloat162(float a, float b) : x(a), y(b) {}
};
__host__ __device__ inline hip_bfloat16 hipify_low2bfloat16(hipify_bfloat162 v) { return v.x; }
__host__ __device__ inline hip_bfloat16 hipify_high2bfloat16(hipify_bfloat162 v) { return v.y; }
__host__ __device__ inline float2 hipify_bfloat1622float2(hipify_bfloat162 v) { return make_float2(v.x, v.y); }
__host__ __device__ inline hipify_bfloat162 hipify_float22bfloat162_rn(float2 f) { return {f.x, f.y}; }
__host__ __device__ inline hipify_bfloat162 hipify_floats2bfloat162_rn(float a, float b) { return {a, b}; }
"""


def _block(guard: str, comment: str, code: str) -> str:
    return f"#ifndef {guard}\n#define {guard}\n// hipify: {comment}\n{code}#endif\n"


# what a translation whose call rules need them gets once, after its leading comments and #pragma once
# (in this order, after the runtime header they need)
HELPERS = {
    "shuffles": _block("HIPIFY_WARP_SHUFFLES", "CUDA's __shfl*_sync(mask, ...) for any type of up to 8 bytes, "
                       "on HIP's maskless shuffles",
                       "".join(_SHUFFLE.format(name=n, lane=lane, arg=lane.split()[-1]) for n, lane in SHUFFLES.items())),
    "simd": _block("HIPIFY_SIMD_BYTES", "CUDA's per-byte SIMD intrinsics that HIP lacks", _SIMD),
    "bfloat162": "#include <hip/hip_bfloat16.h>\n" + _block("HIPIFY_BFLOAT162", "CUDA's pair of bfloat16 on hip_bfloat16 (a float converts to it with "
                        "round-to-nearest-even, as in CUDA)", _BFLOAT162),
}


@dataclass(frozen=True)
class CallRule:
    name: str
    min_args: int | None  # None: a name (a type), replaced wherever it occurs, not a call
    max_args: int | None
    template: str  # in CUDA's names; {0}, {1}, ...: the arguments; {rest}: the arguments after the first
    until: tuple[int, int, int] | None = None  # the HIP version from which the rule no longer applies
    helper: str | None = None  # the HELPERS block that the replacement calls
    always: bool = False  # applies even where the data maps the name (the call itself must change)

    def applies(self, hip_version: tuple[int, int, int]) -> bool:
        return self.until is None or hip_version < self.until


RULES = {r.name: r for r in [
    *(CallRule(f"__{f}_sync", 3, 4, f"hipify_{f}({{rest}})", WARP_SYNC_DECLARED, "shuffles") for f in SHUFFLES),
    *(CallRule(f"{f}_sync", 2, 2, f + "({1})", WARP_SYNC_DECLARED) for f in ("__all", "__any", "__ballot")),
    CallRule("__activemask", 0, 0, "__ballot(1)", WARP_SYNC_DECLARED),
    CallRule("__syncwarp", 0, 1, SYNCWARP, WARP_SYNC_DECLARED),
    CallRule("__trap", 0, 0, "__builtin_trap()"),
    # the driver's error strings before hipDrvGetErrorString/Name (HIP 5.4): HIP has one error type
    CallRule("cuGetErrorString", 2, 2, "(*({1}) = cudaGetErrorString({0}), CUDA_SUCCESS)"),
    CallRule("cuGetErrorName", 2, 2, "(*({1}) = cudaGetErrorName({0}), CUDA_SUCCESS)"),
    # a math mode is a hint that allows faster, less precise arithmetic (TF32, tensor cores): without
    # hipblasSetMathMode (HIP 6.1) the default, full-precision mode stays
    CallRule("cublasSetMathMode", 2, 2, "((void)({0}), CUBLAS_STATUS_SUCCESS)"),
    # CUDA's runtime has C++ overloads taking any kernel pointer; HIP (before 6.0) only const void*
    CallRule("cudaFuncSetAttribute", 3, 3, "cudaFuncSetAttribute(reinterpret_cast<const void*>({0}), {1}, {2})",
             always=True),
    CallRule("cudaFuncSetCacheConfig", 2, 2, "cudaFuncSetCacheConfig(reinterpret_cast<const void*>({0}), {1})",
             always=True),
    CallRule("cudaFuncGetAttributes", 2, 2, "cudaFuncGetAttributes({0}, reinterpret_cast<const void*>({1}))",
             always=True),
    # CUDA's C++ API defaults the flags; HIP's hipStreamWaitEvent takes them
    CallRule("cudaStreamWaitEvent", 2, 2, "cudaStreamWaitEvent({0}, {1}, 0)", always=True),
    *(CallRule(f"__{f}", 2, 2, f"hipify_{f}({{0}}, {{1}})", helper="simd") for f in ("vsub4", "vcmpne4", "vcmpeq4")),
    # bfloat16 as HIP's hip_bfloat16 (the type the tables give __nv_bfloat16): a float converts to it
    # with round-to-nearest-even and back exactly, as CUDA's intrinsics do
    CallRule("__float2bfloat16", 1, 1, "__nv_bfloat16({0})"),
    CallRule("__bfloat162float", 1, 1, "static_cast<float>({0})"),
    *(CallRule(n, None, None, "hipify_bfloat162", helper="bfloat162") for n in ("nv_bfloat162", "__nv_bfloat162")),
    *(CallRule(f"__{f}", n, n, f"hipify_{f}({{rest0}})", helper="bfloat162") for f, n in (
        ("low2bfloat16", 1), ("high2bfloat16", 1), ("bfloat1622float2", 1), ("float22bfloat162_rn", 1),
        ("floats2bfloat162_rn", 2))),
]}
