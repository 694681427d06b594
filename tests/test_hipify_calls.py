"""hipify's call rules (hipify/rules.py): CUDA calls that the target HIP lacks, written with what it
has. One test per rule, with the exact output; then the edges (not a call, wrong arity, comments,
nesting, the version from which a rule stops), and the helpers' arithmetic run on the host against
a reference."""
from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from hipify.mappings import Target, load
from hipify.rules import HELPERS, RULES, SYNCWARP
from hipify.translate import RUNTIME_INCLUDE, translate

HIP52 = load(Target((5, 2, 0)))
HIP70 = load(Target((7, 0, 0)))
NEW = load(Target())
ROC52 = load(Target((5, 2, 0), roc=True))


def tr(src: str, m=HIP52) -> str:
    return translate(src, m).text


def with_helpers(*blocks: str) -> str:
    return RUNTIME_INCLUDE + "".join(HELPERS[b] for b in blocks)


@pytest.mark.parametrize("cuda,hip", [
    ("v = __shfl_sync(0xffffffff, v, 0);", "v = hipify_shfl(v, 0);"),
    ("v = __shfl_up_sync(mask, v, 1, 16);", "v = hipify_shfl_up(v, 1, 16);"),
    ("v = __shfl_down_sync(0xffffffffu, v, d);", "v = hipify_shfl_down(v, d);"),
    ("v += __shfl_xor_sync(0xFFFFFFFF, v, 16, 32);", "v += hipify_shfl_xor(v, 16, 32);"),
])
def test_warp_shuffles_drop_the_mask_and_take_any_type(cuda, hip):
    assert tr(cuda) == with_helpers("shuffles") + hip


def test_shuffle_helpers_are_defined_once_after_the_preamble():
    src = "// k.cuh\n#pragma once\n#include \"common.cuh\"\nT f(T v) { return __shfl_xor_sync(~0u, v, 1) + __shfl_sync(~0u, v, 2); }\n"
    assert tr(src) == ("// k.cuh\n#pragma once\n" + with_helpers("shuffles") + "#include \"common.cuh\"\n"
                       "T f(T v) { return hipify_shfl_xor(v, 1) + hipify_shfl(v, 2); }\n")
    assert HELPERS["shuffles"].count("#ifndef HIPIFY_WARP_SHUFFLES") == 1  # guarded: a second header adds nothing


def test_warp_votes_drop_the_mask():
    assert tr("int a = __all_sync(mask, x > 0) + __any_sync(mask, y); unsigned b = __ballot_sync(0xffffffffu, p);") \
        == "int a = __all(x > 0) + __any(y); unsigned b = __ballot(p);"


def test_activemask_is_the_ballot_of_the_active_lanes():
    assert tr("auto m = __activemask();") == "auto m = __ballot(1);"


def test_syncwarp_is_a_wavefront_fence_and_barrier():
    assert tr("__syncwarp(); __syncwarp(m);") == f"{SYNCWARP}; {SYNCWARP};"
    assert SYNCWARP == ('(__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), '
                        '__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront"))')


def test_trap_is_the_builtin_trap_in_every_version():
    assert tr("if (bad) __trap();", NEW) == "if (bad) __builtin_trap();"


def test_driver_error_string_before_hip_5_4():
    assert tr("cuGetErrorString(err, &str); cuGetErrorName(err, &name);") == \
        "(*(&str) = hipGetErrorString(err), hipSuccess); (*(&name) = hipGetErrorName(err), hipSuccess);"
    assert tr("cuGetErrorString(err, &str);", NEW) == "hipDrvGetErrorString(err, &str);"  # the data's mapping


def test_cublas_math_mode_before_hipblas_6_1_keeps_the_default_mode():
    src = "CHECK(cublasSetMathMode(handles[i], CUBLAS_TF32_TENSOR_OP_MATH));"
    r = translate(src, HIP52)
    assert r.text == "CHECK(((void)(handles[i]), HIPBLAS_STATUS_SUCCESS));"
    assert r.warnings == []  # the dropped mode is not reported
    assert tr(src, ROC52) == "CHECK(((void)(handles[i]), rocblas_status_success));"
    assert tr(src, NEW) == "CHECK(hipblasSetMathMode(handles[i], HIPBLAS_TF32_TENSOR_OP_MATH));"


def test_function_attributes_take_the_kernel_as_const_void_pointer():
    assert tr("cudaFuncSetAttribute(k<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, n);", NEW) == \
        "hipFuncSetAttribute(reinterpret_cast<const void*>(k<T>), hipFuncAttributeMaxDynamicSharedMemorySize, n);"
    assert tr("cudaFuncSetCacheConfig(k, cudaFuncCachePreferShared); cudaFuncGetAttributes(&a, k);") == \
        ("hipFuncSetCacheConfig(reinterpret_cast<const void*>(k), hipFuncCachePreferShared); "
         "hipFuncGetAttributes(&a, reinterpret_cast<const void*>(k));")
    assert tr("auto p = &cudaFuncSetAttribute;") == "auto p = &hipFuncSetAttribute;"  # not a call: the mapping


@pytest.mark.parametrize("f", ["vsub4", "vcmpne4", "vcmpeq4"])
def test_simd_byte_intrinsics(f):
    assert tr(f"int d = __{f}(a, b);") == with_helpers("simd") + f"int d = hipify_{f}(a, b);"


def test_bfloat16_scalars_are_hip_bfloat16():
    assert tr("nv_bfloat16 a = __float2bfloat16(x); float f = __bfloat162float(a); __nv_bfloat16 b;") == \
        "hip_bfloat16 a = hip_bfloat16(x); float f = static_cast<float>(a); hip_bfloat16 b;"


def test_bfloat16_pairs_get_a_helper_type():
    src = "nv_bfloat162 t[2] = {{0.0f, 0.0f}}; float2 f = __bfloat1622float2(t[0]); auto l = __low2bfloat16(t[1]);"
    assert tr(src) == with_helpers("bfloat162") + (
        "hipify_bfloat162 t[2] = {{0.0f, 0.0f}}; float2 f = hipify_bfloat1622float2(t[0]); "
        "auto l = hipify_low2bfloat16(t[1]);")
    assert HELPERS["bfloat162"].startswith("#include <hip/hip_bfloat16.h>\n")


def test_several_helper_blocks_come_in_a_fixed_order():
    out = tr("x = __vsub4(a, b); y = __shfl_sync(~0u, x, 0);")
    assert out == with_helpers("shuffles", "simd") + "x = hipify_vsub4(a, b); y = hipify_shfl(x, 0);"


def test_nested_calls_and_arguments_are_translated():
    assert tr("v = __shfl_xor_sync(FULL, __shfl_xor_sync(FULL, (cudaStream_t)s, 1), f(a, b), 32);") == \
        with_helpers("shuffles") + "v = hipify_shfl_xor(hipify_shfl_xor((hipStream_t)s, 1), f(a, b), 32);"


def test_a_use_that_is_not_such_a_call_is_left_and_reported():
    r = translate("auto f = __shfl_xor_sync;\nx = __shfl_xor_sync(v);", HIP52)
    assert r.text == "auto f = __shfl_xor_sync;\nx = __shfl_xor_sync(v);"
    assert [w.format("k.cu") for w in r.warnings] == [
        "k.cu:1:10: warning: __shfl_xor_sync has no HIP equivalent (HIP 5.2) and is not a call with 3-4 "
        "arguments here: left as it is"]


def test_comments_strings_and_if0_are_left_alone():
    src = '// __shfl_xor_sync(m, v, 1)\nconst char* s = "__syncwarp()";\n#if 0\n__trap();\n#endif\n'
    assert tr(src) == src


def test_warp_rules_stop_where_hip_declares_the_names():
    r = translate("x = __shfl_xor_sync(0xffffffff, v, 1); __syncwarp();", HIP70)
    assert r.text == "x = __shfl_xor_sync(0xffffffff, v, 1); __syncwarp();"
    assert RULES["__syncwarp"].until == (7, 0, 0) and RULES["__trap"].until is None


def test_kernel_names_holding_cuda_letters_are_launched_with_ggl():
    # conv2d_kernel holds "nv": the translator once took it for a CUDA name and lost the launch
    out = translate("conv2d_kernel<half, 3><<<grid, block, 0, st>>>(x, y);", HIP52, launch_ggl=True).text
    assert out == "hipLaunchKernelGGL(HIP_KERNEL_NAME(conv2d_kernel<half, 3>), dim3(grid), dim3(block), 0, st, x, y);"


def _simd_reference(f: str, a: int, b: int) -> int:
    out = 0
    for s in (0, 8, 16, 24):
        x, y = (a >> s) & 255, (b >> s) & 255
        byte = (x - y) % 256 if f == "vsub4" else 255 * ((x != y) == (f == "vcmpne4"))
        out |= byte << s
    return out


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_simd_helpers_compute_what_cuda_defines(tmp_path):
    """The helpers' C++ itself, compiled for the host, against a per-byte reference (edges and random words)."""
    edges = [0, 1, 0x7F, 0x80, 0xFF, 0x7F7F7F7F, 0x80808080, 0xFFFFFFFF, 0x01010101, 0xFEFEFEFE, 0x00FF00FF]
    rng = random.Random(19)
    pairs = [(a, b) for a in edges for b in edges] + [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(500)]
    pairs += [(a, a) for a in edges]
    body = HELPERS["simd"].replace("__host__ __device__ ", "")
    prog = "#include <cstdio>\n" + body + "int main() {\n" + "".join(
        f'  printf("%u %u %u\\n", hipify_vsub4({a}u, {b}u), hipify_vcmpne4({a}u, {b}u), hipify_vcmpeq4({a}u, {b}u));\n'
        for a, b in pairs) + "}\n"
    (tmp_path / "simd.cpp").write_text(prog)
    subprocess.run(["g++", "-O1", "-o", str(tmp_path / "simd"), str(tmp_path / "simd.cpp")], check=True)
    lines = subprocess.run([str(tmp_path / "simd")], check=True, capture_output=True, text=True).stdout.split("\n")
    for (a, b), line in zip(pairs, lines):
        assert [int(x) for x in line.split()] == [_simd_reference(f, a, b) for f in ("vsub4", "vcmpne4", "vcmpeq4")], \
            (hex(a), hex(b))


@pytest.mark.parametrize("src", [
    "#define __syncwarp() { __threadfence_block(); }",  # CuPy's hip_workaround.cuh
    "#undef __syncwarp\n#if defined(__syncwarp) || defined __trap\n#endif",
    "static __device__ __forceinline__ void __syncwarp() {}",
    "__device__ unsigned\n__ballot_sync(unsigned mask, int predicate);",
    "y = ns::__shfl_sync(m, v, 0);",
])
def test_a_projects_own_definition_of_a_rule_name_stays(src):
    r = translate(src, HIP52)
    assert (r.text, r.warnings) == (src, [])


def test_calls_after_keywords_operators_and_in_macro_bodies_are_rewritten():
    assert tr("if (c) __trap(); else __trap(); return __ballot_sync(m, p) * __all_sync(m, q);\n"
              "#define CHECK_ALL(p) __all_sync(~0u, p)\n#define DIE __trap()") == (
        "if (c) __builtin_trap(); else __builtin_trap(); return __ballot(p) * __all(q);\n"
        "#define CHECK_ALL(p) __all(p)\n#define DIE __builtin_trap()")


def test_type_rules_apply_after_type_words():
    assert tr("typedef __nv_bfloat162 nv_bfloat162;\nconst nv_bfloat162 * p;\n#define nv_bfloat162 X") == (
        with_helpers("bfloat162") + "typedef hipify_bfloat162 hipify_bfloat162;\nconst hipify_bfloat162 * p;\n"
        "#define nv_bfloat162 X")


def test_stream_wait_event_gets_the_flags_hip_requires():
    assert tr("cudaStreamWaitEvent(s, e); cudaStreamWaitEvent(s, e, flags);", NEW) == \
        "hipStreamWaitEvent(s, e, 0); hipStreamWaitEvent(s, e, flags);"


def test_a_header_naming_cudas_api_gets_the_runtime_as_nvcc_gives_it():
    # llama.cpp's mmid.cuh: declarations with cudaStream_t, no kernel syntax, no include of its own
    assert translate("#pragma once\nvoid f(cudaStream_t s);\n", HIP52, runtime_header="kernels").text == \
        "#pragma once\n" + RUNTIME_INCLUDE + "void f(hipStream_t s);\n"
    assert translate("#pragma once\nint f();\n", HIP52, runtime_header="kernels").text == "#pragma once\nint f();\n"


def test_shuffles_of_small_types_are_accepted():
    assert "static_assert(sizeof(T) <= 8" in HELPERS["shuffles"]


def test_calls_on_the_line_after_a_directive_are_rewritten():
    """llama.cpp's `#ifndef GGML_USE_HIP\n    __syncwarp();`: the directive's last word is no
    return type of the call (the rule was skipped as a declaration, failing 89 of its files)."""
    src = "void f() {\n#ifndef GGML_USE_HIP\n    __syncwarp();\n#endif\n#if X\n  __trap();\n#endif\n}\n"
    assert tr(src) == ("void f() {\n#ifndef GGML_USE_HIP\n    " + SYNCWARP + ";\n#endif\n#if X\n"
                      "  __builtin_trap();\n#endif\n}\n")
