"""torch.autocast's policy for the CPU (torch 2.13's AutocastCPU registrations): the operators,
by schema name ("name" or "name.overload"), whose functional calls cast their floating arguments
first while autocast is on (csrc/include/tcore/core/Autocast.h). Out= and in-place overloads are
never cast, as torch's. The Python functionals of torch's lists that tcore writes in Python carry
the same policy by their _autocast decorator (tcore/nn/functional.py)."""
from __future__ import annotations

from .model import NativeFunction

# to the autocast dtype (bfloat16 unless set otherwise)
LOWER_PRECISION = frozenset("""
    _addmm_activation _convolution.deprecated _native_multi_head_attention addbmm addmm baddbmm bmm
    conv1d conv1d.padding conv2d conv2d.padding conv3d conv3d.padding conv_tbc conv_transpose1d
    conv_transpose2d.input conv_transpose3d.input linalg_vecdot linear matmul mkldnn_rnn_layer mm
    prelu scaled_dot_product_attention
""".split())

# to the widest floating type among the arguments
PROMOTE = frozenset("""
    cat index_copy stack
""".split())

# to float32
FLOAT32 = frozenset("""
    _grid_sampler_2d_cpu_fallback _lu_with_info adaptive_avg_pool3d adaptive_max_pool3d avg_pool3d
    binary_cross_entropy binary_cross_entropy_with_logits cdist cholesky cholesky_inverse
    cholesky_solve cosine_embedding_loss cross_entropy_loss ctc_loss.IntList ctc_loss.Tensor
    fake_quantize_per_tensor_affine fft_fft fft_fft2 fft_fftn fft_hfft fft_ifft fft_ifft2 fft_ifftn
    fft_ihfft fft_irfft fft_irfft2 fft_irfftn fft_rfft fft_rfft2 fft_rfftn fractional_max_pool2d
    fractional_max_pool3d geqrf grid_sampler grid_sampler_2d grid_sampler_3d hinge_embedding_loss
    huber_loss inverse kl_div l1_loss linalg_cholesky linalg_cholesky_ex linalg_cond
    linalg_cond.p_str linalg_eig linalg_eigh linalg_eigvals linalg_eigvalsh
    linalg_householder_product linalg_inv linalg_inv_ex linalg_lstsq linalg_matrix_rank
    linalg_matrix_rank.atol_rtol_float linalg_matrix_rank.atol_rtol_tensor
    linalg_matrix_rank.tol_tensor linalg_qr linalg_solve linalg_svd linalg_svdvals linalg_tensorinv
    linalg_tensorsolve lu_solve margin_ranking_loss max_pool3d max_unpool2d max_unpool3d mse_loss
    multi_margin_loss multilabel_margin_loss multilabel_margin_loss_forward nanquantile
    nanquantile.scalar nll_loss nll_loss2d orgqr ormqr pinverse poisson_nll_loss polar prod
    prod.dim_int qr quantile quantile.scalar reflection_pad1d reflection_pad2d replication_pad1d
    replication_pad2d replication_pad3d smooth_l1_loss soft_margin_loss stft stft.center svd trace
    triangular_solve triplet_margin_loss view_as_complex
""".split())

POLICIES = {"LowerPrecision": LOWER_PRECISION, "Promote": PROMOTE, "Float32": FLOAT32}

# run below autocast, uncast, though tcore composes them of listed operators: torch computes them
# in kernels of their own (so their results keep their arguments' dtype)
BELOW = frozenset("""
    addmv addr linalg_matrix_exp matrix_exp mv
""".split())


def policy(f: NativeFunction) -> str | None:
    """What f does under autocast: a cast policy (an autocast::Policy enumerator's name), "Below"
    (its call runs below autocast: BELOW's, and every out= and in-place overload, which torch never
    casts), or None (it runs as called: the operators it calls cast by their own policies)."""
    name = str(f.func.name)
    listed = next((p for p, names in POLICIES.items() if name in names), None)
    if listed is None and (f.func.kind != "functional" or name in BELOW):
        return "Below"
    return listed
