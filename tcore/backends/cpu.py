"""tcore.backends.cpu: the CPU capability whose kernels run.

The kernels under csrc/native/cpu/ are compiled once per capability of
cmake/cpu_capabilities.txt (baseline x86-64-v2, AVX2+FMA, AVX-512); at load time tcore
registers those of the best one this CPU has. TCORE_CPU_CAPABILITY=default|avx2|avx512
(set before tcore is imported) picks a lower one, as ATEN_CPU_CAPABILITY does for torch.
"""
from __future__ import annotations

from .. import _C

__all__ = ["get_cpu_capability", "capabilities", "vector_math", "blas", "convolution"]


def get_cpu_capability() -> str:
    """The capability in use: "DEFAULT", "AVX2" or "AVX512" (torch.backends.cpu's names)."""
    return _C._get_cpu_capability()


def capabilities() -> list[dict]:
    """Every capability of the build's table, lowest first: name, compiled (by this build),
    supported (by this CPU)."""
    return [dict(name=n, compiled=c, supported=s) for n, c, s in _C._cpu_capabilities()]


def vector_math() -> str:
    """Where exp, log, tanh, erf, sin... get their vector code: "sleef" (SLEEF, at the chosen
    capability's width), or "libm" (a build without SLEEF: scalar calls)."""
    return _C._cpu_vector_math()


def blas() -> str:
    """What computes float32/float64 matmul (mm, bmm, addmm, linear): "openblas" (a build that
    found OpenBLAS: its sgemm/dgemm, kernels chosen by OpenBLAS for the CPU, and LAPACK for
    tcore.linalg's inv, solve, solve_triangular, det, slogdet, cholesky, eigh and svd), or "tcore" (tcore's own packed kernel,
    per CPU capability; those linalg functions then raise)."""
    return _C._cpu_blas()


def convolution() -> str:
    """What computes conv2d's float32 product and gradients: "onednn" (a build that found oneDNN,
    libdnnl-dev: its kernels for this CPU, chosen at run time; convolutions under about 4M
    multiply-adds stay tcore's), or "tcore" (its patches-by-weight products through matmul).
    TCORE_USE_ONEDNN=0 in the environment turns oneDNN off."""
    return _C._cpu_convolution()
