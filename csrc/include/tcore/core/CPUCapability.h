#pragma once
// CPU capabilities: the kernels under csrc/native/cpu/ (and the generated CPU registrations)
// are compiled once per line of cmake/cpu_capabilities.txt (baseline, AVX2, AVX-512), each copy
// in its own inline namespace tcore::native::cpu_<name>, and the one to register is chosen at
// load time from CPUID; TCORE_CPU_CAPABILITY=default|avx2|avx512 picks a lower one.
#include "tcore/core/Macros.h"

// The namespace of the CPU kernels in this translation unit. The build sets it for each copy of
// a kernel source; everywhere else (and in code that includes tcore's headers) it is the
// baseline's, so a direct call of a CPU kernel from outside the kernels reaches that copy.
#ifndef TCORE_CPU_NS
#define TCORE_CPU_NS cpu_default
#endif
#define TCORE_CPU_STRINGIFY_(x) #x
#define TCORE_CPU_STRINGIFY(x) TCORE_CPU_STRINGIFY_(x)
#define TCORE_CPU_NS_NAME TCORE_CPU_STRINGIFY(TCORE_CPU_NS)

namespace tcore {

// The capability whose kernels are registered, as torch.backends.cpu.get_cpu_capability()
// names them: "DEFAULT", "AVX2", "AVX512". Throws when TCORE_CPU_CAPABILITY has a value that is
// no capability (at load time the best one was used: an error can't be thrown there).
TCORE_API const char* get_cpu_capability();
// Every capability of the table: its name, whether this build compiled it, whether this CPU has it.
struct CPUCapabilityInfo {
  const char* name;
  bool compiled;
  bool supported;
};
TCORE_API const CPUCapabilityInfo* cpu_capabilities(int* count);

// Whether the CPU rounds float32 to bfloat16 itself (AVX512_BF16: Cooper Lake, Sapphire Rapids, Zen 4
// and later): the AVX-512 kernels' bfloat16 loops use its instruction then (native/cpu/VecMath.h).
TCORE_API bool cpu_has_avx512_bf16();

// Where the vectorized elementary functions come from: "sleef" (native/cpu/VecMath.h), or
// "libm" (a build without SLEEF: scalar calls).
TCORE_API const char* cpu_vector_math();
// What computes float32/float64 matmul: "openblas" (sgemm/dgemm), or "tcore" (its own kernel).
TCORE_API const char* cpu_blas();
// What computes conv2d's float32 product and gradients: "onednn" (a build with oneDNN, not turned off
// by TCORE_USE_ONEDNN=0: native/onednn/Conv.h; small convolutions stay tcore's), or "tcore" (its
// patches-by-weight products, native/cpu/Im2Col.cpp).
TCORE_API const char* cpu_convolution();

// Called once by each generated CPU registration shard of each compiled capability (at load
// time): runs `install` (the shard's register_kernel calls) when `ns` ("cpu_avx2") is the
// chosen capability. The code of `install` may use instructions only that capability has.
TCORE_API bool register_cpu_kernels(const char* ns, void (*install)());

}  // namespace tcore
