"""The boxed path (generated unboxing code, tcore.ops): every registered operator is
reachable through it and gives the same result as the typed call; one test generated
over the whole registry; bad arguments are clear TypeErrors."""
from __future__ import annotations

import re

import numpy as np
import pytest


@pytest.fixture(scope="module")
def registry(tcore):
    return tcore._C._boxed_operators()


# Arguments that must fit each other (shapes of views and their backward), by operator;
# a tuple stands for a tensor of that shape.
OVERRIDES = {
    "select_backward": dict(grad_output=(3,), input_sizes=[3, 3], dim=1, index=1),
    "value_selecting_reduction_backward": dict(grad=(3,), dim=1, indices=lambda tc: tc.tensor([2, 0, 1]),
                                               sizes=[3, 3], keepdim=False),
    "gelu_backward": dict(approximate="tanh"),
    "linalg_matrix_norm": dict(dim=[0, 1]),  # (a matrix norm's two dims)
    "linalg_norm.ord_str": dict(ord="fro", dim=[0, 1]),
    # a positive-definite matrix (3 I + a random one symmetrized): the factorization takes it
    "linalg_cholesky_ex": dict(self=lambda tc: tc.tensor(np.array([[4.0, 1, 0.5], [1, 3, 0.25], [0.5, 0.25, 2]],
                                                                  dtype=np.float32))),
    "linalg_cholesky": dict(self=lambda tc: tc.tensor(np.array([[4.0, 1, 0.5], [1, 3, 0.25], [0.5, 0.25, 2]],
                                                               dtype=np.float32))),
    # LU factors: pivoting (the CPU has no other), LAPACK's row interchanges
    "linalg_lu_factor_ex": dict(pivot=True),
    "linalg_lu_factor": dict(pivot=True),
    "linalg_lu": dict(pivot=True),
    "lu_unpack": dict(LU_pivots=lambda tc: tc.tensor([2, 3, 3], dtype=tc.int32)),
    "linalg_lu_solve": dict(pivots=lambda tc: tc.tensor([2, 3, 3], dtype=tc.int32)),
    "lu_solve": dict(LU_pivots=lambda tc: tc.tensor([2, 3, 3], dtype=tc.int32)),
    "vdot": dict(self=(3,), other=(3,)),  # (vectors)
    "fill.Tensor": dict(value=lambda tc: tc.tensor(1.5)),  # (a 0-dim value)
    "fill_.Tensor": dict(value=lambda tc: tc.tensor(1.5)),
    "fill.Tensor_out": dict(value=lambda tc: tc.tensor(1.5)),
    "addmv": dict(self=(3,), vec=(3,)), "addmv_": dict(self=(3,), vec=(3,)),
    "addr": dict(vec1=(3,), vec2=(3,)), "addr_": dict(vec1=(3,), vec2=(3,)), "ger": dict(self=(3,), vec2=(3,)),
    "baddbmm": dict(batch1=(2, 3, 3), batch2=(2, 3, 3)), "baddbmm_": dict(self=(2, 3, 3), batch1=(2, 3, 3), batch2=(2, 3, 3)),
    "addbmm": dict(batch1=(2, 3, 3), batch2=(2, 3, 3)), "addbmm_": dict(batch1=(2, 3, 3), batch2=(2, 3, 3)),
    "linalg_tensorinv": dict(ind=1), "cov": dict(fweights=None, aweights=None), "diag_embed": dict(dim1=0, dim2=2),
    "linalg_cond.p_str": dict(p="fro"), "nuclear_norm.dim": dict(dim=[0, 1]),
    "linalg_tensorsolve": dict(other=(3,), dims=None),  # (a 3x3 self against 3 values)
    "slice_backward": dict(grad_output=(3, 1), input_sizes=[3, 3], dim=1, start=1, end=2, step=1),
    "diagonal_backward": dict(grad_output=(2,), input_sizes=[3, 3], offset=1, dim1=0, dim2=1),
    "unfold_backward": dict(grad_in=(3, 2, 2), input_sizes=[3, 3], dim=1, size=2, step=1),
    "as_strided": dict(size=[2, 2], stride=[3, 1]),
    "as_strided_": dict(size=[2, 2], stride=[3, 1]),
    "resize_": dict(size=[2, 5]),
    "empty_strided": dict(size=[2, 3], stride=[1, 2]),
    "permute": dict(dims=[1, 0]),
    "diagonal": dict(offset=0, dim1=0, dim2=1),
    "unfold": dict(dimension=1, size=2, step=1),
    "reshape": dict(shape=[9]),
    "random_": {"from": 0, "to": 5},
    "clamp": dict(min=0.7, max=1.2),
    "clamp_": dict(min=0.7, max=1.2),
    "clip": dict(min=0.7, max=1.2), "clip_": dict(min=0.7, max=1.2),
    "randint": dict(low=0, high=5),
    "bmm": dict(self=(2, 3, 3), mat2=(2, 3, 3)),
    "dot": dict(self=(3,), tensor=(3,)),
    "mv": dict(vec=(3,)),
    "outer": dict(self=(3,), vec2=(3,)),
    "avg_pool2d": dict(self=(1, 3, 3), kernel_size=[2, 2]),
    "max_pool2d": dict(self=(1, 3, 3), kernel_size=[2, 2]),
    "conv2d": dict(input=(1, 3, 3), weight=(2, 1, 2, 2), bias=(2,)),
    "embedding": dict(indices=lambda tc: tc.tensor([[0, 2], [1, 1]])),
    "nll_loss": dict(target=lambda tc: tc.tensor([0, 2, 1]), weight=(3,)),
    "cross_entropy": dict(target=lambda tc: tc.tensor([0, 2, 1]), label_smoothing=0.1, weight=(3,)),
    "gather": dict(index=lambda tc: tc.tensor([[0, 2], [1, 1]])),
    "scatter_add": dict(index=lambda tc: tc.tensor([[0, 2], [1, 1]])),
    "index_select": dict(index=lambda tc: tc.tensor([2, 0])),
    "index_add": dict(index=lambda tc: tc.tensor([2, 0, 0])),
    "layer_norm": dict(normalized_shape=[3], weight=(3,), bias=(3,)),
    "native_layer_norm": dict(normalized_shape=[3], weight=(3,), bias=(3,)),
    "constant_pad_nd": dict(pad=[1, 0, 0, 2]),
    "dropout": dict(p=0.5),
    "to": dict(device="cpu"),
    "linalg_diagonal": dict(offset=0, dim1=0, dim2=1),
    "linalg_vecdot": dict(dim=1),
    "linalg_vector_norm": dict(ord=2, dim=[1]),
    "special_logsumexp": dict(dim=[1]),
    "special_logit": dict(eps=0.25),
}
# the (values, indices) out= overloads: empty outs, int64 indices
_LONG_OUT = lambda tc: tc.empty(0, dtype=tc.int64)  # noqa: E731
_OUT = lambda tc: tc.empty(0)  # noqa: E731
for _op, _names in {"max.dim_max": ("max", "max_values"), "min.dim_min": ("min", "min_indices"),
                    "sort.values": ("values", "indices"), "sort.values_stable": ("values", "indices"),
                    "topk.values": ("values", "indices"), "kthvalue.values": ("values", "indices"),
                    "median.dim_values": ("values", "indices"), "cummax.out": ("values", "indices"),
                    "nanmedian.dim_values": ("values", "indices"), "mode.values": ("values", "indices"),
                    "cummin.out": ("values", "indices")}.items():
    OVERRIDES[_op] = {**OVERRIDES.get(_op.split(".")[0], {}), _names[0]: _OUT, _names[1]: _LONG_OUT}
_INT_OUT = lambda tc: tc.empty(0, dtype=tc.int32)  # noqa: E731
OVERRIDES["frexp.Tensor_out"] = dict(mantissa=_OUT, exponent=_INT_OUT)
OVERRIDES["aminmax.out"] = dict(min=_OUT, max=_OUT)
OVERRIDES["linalg_lu_factor.out"] = dict(pivot=True, LU=_OUT, pivots=_INT_OUT)  # (LAPACK's int32 pivots)
OVERRIDES["linalg_lu_factor_ex.out"] = dict(pivot=True, LU=_OUT, pivots=_INT_OUT, info=_INT_OUT)
OVERRIDES["linalg_inv_ex.inverse"] = dict(inverse=_OUT, info=_INT_OUT)
OVERRIDES["linalg_cholesky_ex.L"] = dict(L=_OUT, info=_INT_OUT, self=OVERRIDES["linalg_cholesky"]["self"])
OVERRIDES["_linalg_det.result"] = dict(result=_OUT, LU=_OUT, pivots=_INT_OUT)
OVERRIDES["_linalg_slogdet.sign"] = dict(sign=_OUT, logabsdet=_OUT, LU=_OUT, pivots=_INT_OUT)
OVERRIDES["_linalg_solve_ex.result"] = dict(result=_OUT, LU=_OUT, pivots=_INT_OUT, info=_INT_OUT)
OVERRIDES["linalg_solve_ex.out"] = dict(result=_OUT, info=_INT_OUT)
OVERRIDES["tril_indices.out"] = OVERRIDES["triu_indices.out"] = dict(out=_LONG_OUT)  # (an integer dtype only)
OVERRIDES["linalg_lstsq.out"] = dict(solution=_OUT, residuals=_OUT, rank=_LONG_OUT, singular_values=_OUT)
for _op in ("all.all_out", "all.out", "any.all_out", "any.out"):  # a bool out (or uint8), as torch requires
    OVERRIDES[_op] = {"out": lambda tc: tc.empty(0, dtype=tc.bool)}
for _op, _kinds in {"_unique2.out": (_OUT, _LONG_OUT, _LONG_OUT), "unique_dim.out": (_OUT, _LONG_OUT, _LONG_OUT),
                    "unique_consecutive.out": (_OUT, _LONG_OUT, _LONG_OUT),
                    "native_layer_norm.out": (_OUT, _OUT, _OUT)}.items():  # autogen'd: out0, out1, out2
    OVERRIDES[_op] = {**OVERRIDES.get(_op.split(".")[0], {}), **{f"out{i}": k for i, k in enumerate(_kinds)}}
# the view_copy operators take their views' arguments; the scatters a src of the view's shape
OVERRIDES.update({f"{v}_copy": OVERRIDES[v] for v in ("as_strided", "permute", "diagonal", "unfold")})
OVERRIDES.update({
    "select_scatter": dict(src=(3,), dim=1, index=1),
    "slice_scatter": dict(src=(3, 1), dim=1, start=1, end=2, step=1),
    "diagonal_scatter": dict(src=(3,), offset=0, dim1=0, dim2=1),
    "as_strided_scatter": dict(src=(2, 2), size=[2, 2], stride=[3, 1]),
})
OVERRIDES["index_add_"] = OVERRIDES["index_add"]
# torch API composites (native/composite/TorchApi.cpp) whose arguments the defaults do not fit
OVERRIDES.update({
    "meshgrid": dict(tensors=lambda tc: [tc.ones(2), tc.ones(3)]),
    "meshgrid.indexing": dict(tensors=lambda tc: [tc.ones(2), tc.ones(3)], indexing="xy"),
    "cross": dict(dim=1), "cross.out": dict(dim=1),
    "diag": dict(diagonal=0), "diag.out": dict(diagonal=0),
    "movedim.intlist": dict(source=[0], destination=[1]), "moveaxis.intlist": dict(source=[0], destination=[1]),
    "unflatten.int": dict(dim=1, sizes=[3, 1]),
    "take_along_dim": dict(indices=lambda tc: tc.tensor([[0], [2], [1]]), dim=1),
    "take_along_dim.out": dict(indices=lambda tc: tc.tensor([[0], [2], [1]]), dim=1),
    "addcdiv": dict(value=2), "addcdiv_": dict(value=2),
})
OVERRIDES.update({f"index_fill{s}.int_{k}": dict(index=lambda tc: tc.tensor([2, 0]),
                                                  **({"value": lambda tc: tc.tensor(3.0)} if k == "Tensor" else {}))
                  for s in ("", "_") for k in ("Scalar", "Tensor")})
_SCATTER_INDEX = lambda tc: tc.tensor([[2, 0, 1], [0, 0, 2]])  # noqa: E731
for _op in ("scatter.src", "scatter_.src", "scatter.src_out", "scatter.value", "scatter_.value", "scatter.value_out"):
    OVERRIDES[_op] = dict(index=_SCATTER_INDEX, **({"value": 2.5} if "value" in _op else {}))
for _op in ("scatter.reduce", "scatter_.reduce", "scatter.reduce_out", "scatter.value_reduce",
            "scatter_.value_reduce", "scatter.value_reduce_out"):
    OVERRIDES[_op] = dict(index=_SCATTER_INDEX, reduce="multiply", **({"value": 2.5} if "value" in _op else {}))
for _op in ("scatter_reduce.two", "scatter_reduce_.two", "scatter_reduce.two_out"):
    OVERRIDES[_op] = dict(index=_SCATTER_INDEX, reduce="amax", include_self=False)
OVERRIDES["bincount"] = OVERRIDES["bincount.out"] = dict(self=lambda tc: tc.tensor([2, 0, 2]), weights=None)
for _op in ("searchsorted.Tensor", "searchsorted.Tensor_out", "searchsorted.Scalar", "searchsorted.Scalar_out"):
    OVERRIDES[_op] = dict(sorted_sequence=lambda tc: tc.tensor([1.0, 2.0, 4.0]), sorter=None, side=None,
                          **({"out": lambda tc: tc.empty(0, dtype=tc.int64)} if _op.endswith("out") else {}))
for _op in ("bucketize.Tensor", "bucketize.Tensor_out", "bucketize.Scalar", "bucketize.Scalar_out"):
    OVERRIDES[_op] = dict(boundaries=lambda tc: tc.tensor([1.0, 2.0, 4.0]),
                          **({"out": lambda tc: tc.empty(0, dtype=tc.int64)} if _op.endswith("out") else {}))
OVERRIDES["cartesian_prod"] = dict(tensors=lambda tc: [tc.ones(2), tc.zeros(3)])
OVERRIDES["take"] = OVERRIDES["take.out"] = dict(index=lambda tc: tc.tensor([[2, -1], [0, 8]]))
OVERRIDES.update({f"index_fill.int_{k}_out": OVERRIDES[f"index_fill.int_{k}"] for k in ("Scalar", "Tensor")})
OVERRIDES["split_copy.Tensor_out"] = dict(split_size=1, out=lambda tc: [tc.empty([0]) for _ in range(3)])
OVERRIDES["randint_like.low_dtype"] = OVERRIDES["randint_like.low_dtype_out"] = dict(low=0, high=3)
OVERRIDES["split_with_sizes_copy.out"] = dict(out=lambda tc: [tc.empty([0]) for _ in range(2)])
# structured out= overloads whose out dtype is fixed (int64 indices)
OVERRIDES.update({f"{op}.out": dict(out=lambda tc: tc.empty([0], dtype=tc.int64)) for op in ("argmax", "argmin")})
# tensor_split and friends, rot90, float_power, is_nonzero (native/composite/Join.cpp, TorchApi.cpp)
_CUBE = lambda tc: tc.ones(3, 3, 3)  # noqa: E731
_DOUBLE_OUT = lambda tc: tc.empty([0], dtype=tc.float64)  # noqa: E731
OVERRIDES.update({
    "tensor_split.tensor_indices_or_sections": dict(tensor_indices_or_sections=lambda tc: tc.tensor([1])),
    "dsplit.int": dict(self=_CUBE), "dsplit.array": dict(self=_CUBE, indices=[1]),
    "rot90": dict(dims=[0, 1]), "rot90.out": dict(dims=[0, 1]),
    "float_power_.Tensor": dict(self=lambda tc: tc.ones(3, 3, dtype=tc.float64)),
    "float_power_.Scalar": dict(self=lambda tc: tc.ones(3, 3, dtype=tc.float64)),
    "float_power.Tensor_Tensor_out": dict(out=_DOUBLE_OUT), "float_power.Scalar_out": dict(out=_DOUBLE_OUT),
    "float_power.Tensor_Scalar_out": dict(out=_DOUBLE_OUT),
    "is_nonzero": dict(self=lambda tc: tc.ones(1)),
})
OVERRIDES["random"] = OVERRIDES["random_"]  # the functional counterparts take the in-place forms' arguments
OVERRIDES["scatter_add_"] = OVERRIDES["scatter_add"]
# index_copy, masked_scatter, the shifts and in-place bitwise operators (integers), the gamma family
OVERRIDES.update({op: dict(dim=1, index=lambda tc: tc.tensor([2, 0]), source=(3, 2))
                  for op in ("index_copy", "index_copy_", "index_copy.out")})
OVERRIDES.update({op: dict(mask=lambda tc: tc.tensor([[True, False, True], [False, False, True], [True, True, False]]),
                           source=(9,)) for op in ("masked_scatter", "masked_scatter_", "masked_scatter.out")})
_INTS = lambda tc: tc.tensor([[1, -2, 3], [40, 5, -6], [7, 8, 0]])  # noqa: E731
_SHIFTS = lambda tc: tc.tensor([[1, 2, 0], [3, 70, -1], [2, 2, 2]])  # noqa: E731
for _name in ("bitwise_left_shift", "bitwise_right_shift"):
    for _op in (f"{_name}.Tensor", f"{_name}_.Tensor", f"{_name}.Tensor_out"):
        OVERRIDES[_op] = dict(self=_INTS, other=_SHIFTS, **({"out": lambda tc: tc.empty(0, dtype=tc.int64)}
                                                           if _op.endswith("out") else {}))
    for _op in (f"{_name}.Tensor_Scalar", f"{_name}_.Tensor_Scalar", f"{_name}.Tensor_Scalar_out"):
        OVERRIDES[_op] = dict(self=_INTS, other=3, **({"out": lambda tc: tc.empty(0, dtype=tc.int64)}
                                                      if _op.endswith("out") else {}))
    for _op in (f"{_name}.Scalar_Tensor", f"{_name}.Scalar_Tensor_out"):
        OVERRIDES[_op] = dict(self=5, other=_SHIFTS, **({"out": lambda tc: tc.empty(0, dtype=tc.int64)}
                                                       if _op.endswith("out") else {}))
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    OVERRIDES[f"{_name}.Scalar_Tensor"] = OVERRIDES[f"{_name}.Scalar_Tensor_out"] = dict(self=6, other=_INTS)
    OVERRIDES[f"{_name}.Scalar_Tensor_out"] = dict(self=6, other=_INTS, out=lambda tc: tc.empty(0, dtype=tc.int64))
for _name in ("bitwise_and_", "bitwise_or_", "bitwise_xor_"):
    OVERRIDES[f"{_name}.Tensor"] = dict(self=_INTS, other=_SHIFTS)
    OVERRIDES[f"{_name}.Scalar"] = dict(self=_INTS, other=6)
_POSITIVE = lambda tc: tc.rand(3, 3) + 2  # noqa: E731
OVERRIDES.update({op: dict(self=_POSITIVE, p=3) for op in ("mvlgamma", "mvlgamma_", "mvlgamma.out",
                                                             "special_multigammaln", "special_multigammaln.out")})
OVERRIDES.update({op: dict(self=_POSITIVE, n=2) for op in ("polygamma", "polygamma_", "polygamma.out",
                                                             "special_polygamma", "special_polygamma.out")})
OVERRIDES.update({op: dict(dtype=lambda tc: tc.int32) for op in ("view.dtype", "view_copy.dtype",
                                                                  "view_copy.dtype_out")})
_TAPS = lambda tc: tc.tensor([[0, 0, 1, 2], [1, 1, 2, 2]])  # noqa: E731
_TAP_WEIGHTS = lambda tc: tc.tensor([[1.0, 0.75, 0.25, 0.5], [0.0, 0.25, 0.75, 0.5]])  # noqa: E731
OVERRIDES["_resample"] = dict(dim=1, indices=_TAPS, weights=_TAP_WEIGHTS)
OVERRIDES["_resample_backward"] = dict(grad=(3, 4), dim=1, input_sizes=[3, 3], indices=_TAPS, weights=_TAP_WEIGHTS)
# operators of tcore.nn / torch idioms (issue 21); a key with an overload name wins over the base name
_MASK = lambda tc: tc.tensor([[True, False, True], [False, False, True], [True, True, False]])  # noqa: E731
OVERRIDES.update({
    "index.Tensor": dict(indices=lambda tc: [None, tc.tensor([2, 0])]),
    "index_put": dict(indices=lambda tc: [tc.tensor([2, 0, 2])], values=(3,)),
    "index_put_": dict(indices=lambda tc: [tc.tensor([2, 0, 2])], values=(3,)),
    "masked_fill": dict(mask=_MASK, value=2.5),
    "masked_fill.Tensor": dict(mask=_MASK, value=lambda tc: tc.tensor(2.5)),
    "masked_fill_": dict(mask=_MASK, value=2.5),
    "masked_fill_.Tensor": dict(mask=_MASK, value=lambda tc: tc.tensor(2.5)),
    "masked_select": dict(mask=_MASK),
    "clamp.Tensor": dict(min=(3, 3), max=lambda tc: tc.tensor(1.2)),
    "clip.Tensor": dict(min=(3, 3), max=lambda tc: tc.tensor(1.2)),
    "einsum": dict(equation="ij,jk->ik"),
    "repeat": dict(repeats=[2, 1, 3]),
    "repeat_interleave.Tensor": dict(repeats=lambda tc: tc.tensor([1, 0, 2])),
    "repeat_interleave.self_Tensor": dict(repeats=lambda tc: tc.tensor([1, 0, 2]), dim=1),
    "repeat_interleave.self_int": dict(repeats=2, dim=0),
    "topk": dict(k=2),
    "kthvalue": dict(k=2),
    "multinomial": dict(num_samples=2),
    "randperm": dict(n=7),
    "flip": dict(dims=[0, 1]),
    "roll": dict(shifts=[1, 2], dims=[0, 1]),
    "unique_dim": dict(dim=1),
    "_im2col": dict(self=(1, 2, 3, 3), kernel_size=[2, 2], dilation=[1, 1], padding=[1, 0], stride=[1, 1]),
    "_max_pool2d_indices": dict(self=(1, 2, 3, 3), kernel_size=[2, 2], stride=[1, 1], padding=[0, 0],
                                dilation=[1, 1], output_size=[2, 2]),
    "_max_pool2d_indices_backward": dict(grad_output=(1, 1, 2, 2), self=(1, 1, 3, 3),
                                         indices=lambda tc: tc.tensor([[[[0, 1], [4, 8]]]])),
    "_fused_adam_": dict(grad=(3, 3), exp_avg=(3, 3), exp_avg_sq=(3, 3), lr=0.1, beta1=0.9, beta2=0.99, eps=1e-8,
                         weight_decay=0.0, step=1.0),
    "_fused_adam": dict(grad=(3, 3), exp_avg=(3, 3), exp_avg_sq=(3, 3), lr=0.1, beta1=0.9, beta2=0.99, eps=1e-8,
                        weight_decay=0.0, step=1.0),
    "_col2im": dict(self=(8, 8), input_size=[1, 2, 3, 3], kernel_size=[2, 2], dilation=[1, 1], padding=[1, 0],
                    stride=[1, 1]),
    "_avg_pool2d": dict(self=(1, 2, 4, 4), kernel_size=[2, 2], stride=[2, 1], padding=[1, 0], count_include_pad=False,
                        divisor_override=None, output_size=[3, 3]),
    "_avg_pool2d_backward": dict(grad_output=(1, 2, 3, 3), self=(1, 2, 4, 4), kernel_size=[2, 2], stride=[2, 1],
                                 padding=[1, 0], count_include_pad=True, divisor_override=3),
    "_conv2d_im2col": dict(self=(1, 2, 4, 4), weight=(3, 2, 2, 2), stride=[1, 1], padding=[1, 0], dilation=[1, 1]),
    # probabilities in [0, 1) for bernoulli; distribution parameters in range
    "bernoulli": dict(self=lambda tc: tc.full([3, 3], 0.25)), "bernoulli.p": dict(p=0.25),
    "bernoulli.Tensor": dict(p=lambda tc: tc.full([3, 3], 0.25)), "bernoulli_.float": dict(p=0.25), "bernoulli.float_out": dict(p=0.25),
    "bernoulli_.Tensor": dict(p=lambda tc: tc.full([3, 3], 0.25)),
    "geometric": dict(p=0.25), "geometric_": dict(p=0.25),
    **{op: dict(q=lambda tc: tc.tensor([0.25, 0.5])) for op in ("quantile", "nanquantile")},
    **{op: dict(q=0.25) for op in ("quantile.scalar", "nanquantile.scalar")},
    **{op: dict(self=lambda tc: tc.tensor([[4, 6], [9, 0]]), other=lambda tc: tc.tensor([[6, 4], [6, 5]]))
       for op in ("gcd", "gcd_", "gcd.out", "lcm", "lcm_", "lcm.out")},
    "_recurrent_layer": dict(input_projection=(4, 2, 12), hx=(2, 3), cx=(2, 3), w_hh=(12, 3), b_hh=(12,), w_hr=None,
                             mode="LSTM", reverse=True, valid=None),
    **{op: {"input" if op.startswith("linalg") else "self": (4, 3),
            "tau" if op.startswith("linalg") else "input2": (2,)}
       for op in ("linalg_householder_product", "linalg_householder_product.out", "orgqr")},
    "_lstm_layer": dict(input_projection=(4, 2, 12), hx=(2, 3), cx=(2, 3), w_hh=(12, 3), b_hh=(12,),
                        valid=lambda tc: tc.tensor([[True, True], [True, False], [True, False], [False, False]]),
                        reverse=True),
    "_lstm_layer_backward": dict(grad_output=(4, 2, 3), grad_hy=(2, 3), grad_cy=None, hx=(2, 3), cx=(2, 3),
                                 w_hh=(12, 3), output=(4, 2, 3), gates=(4, 2, 12), cells=(4, 2, 3), valid=None,
                                 reverse=False, has_bias=True),
    "_conv2d_im2col_backward": dict(grad_output=(1, 3, 5, 3), self=(1, 2, 4, 4), weight=(3, 2, 2, 2), stride=[1, 1],
                                    padding=[1, 0], dilation=[1, 1], output_mask=[True, True]),
    **{op: dict(input=(4, 3, 2), weight=(3,), bias=(3,), running_mean=(3,), running_var=(3,), training=True,
                momentum=0.1, eps=1e-5)
       for op in ("batch_norm", "_native_batch_norm_legit_functional", "_native_batch_norm_legit",
                  "_native_batch_norm_legit_no_training")},
    **{op: dict(self=(1, 2, 4, 4), kernel_size=[2, 2], stride=[2, 1], padding=[1, 0], dilation=[1, 1], ceil_mode=False,
                **({"out": _OUT, "indices": _LONG_OUT} if op.endswith(".out") else {}))
       for op in ("max_pool2d_with_indices", "max_pool2d_with_indices.out")},
    "native_layer_norm_backward": dict(grad_out=(4, 3), input=(4, 3), normalized_shape=[3], mean=(4, 1), rstd=(4, 1),
                                       weight=(3,), bias=(3,), output_mask=[True, True, True]),
    "native_batch_norm_backward": dict(grad_out=(4, 3, 2), input=(4, 3, 2), weight=(3,), running_mean=(3,),
                                       running_var=(3,), save_mean=(3,), save_invstd=(3,), train=True, eps=1e-5,
                                       output_mask=[True, True, True]),
})


def _value(tcore, op: str, name: str, type_: str, rng):
    base, _, overload = op.partition(".")
    # an out= overload (clamp.Tensor_out, an autogen one) takes its functional overload's arguments
    functional = f"{base}.{overload[:-len('_out')]}" if overload.endswith("_out") else base
    fixed = OVERRIDES.get(op, OVERRIDES.get(functional, OVERRIDES.get(base, {})))
    op = op.partition(".")[0]
    if name in fixed:
        v = fixed[name]
        if callable(v):
            return v(tcore)
        return tcore.tensor((rng.random(v) + 0.5).astype(np.float32)) if isinstance(v, tuple) else v
    """A sample argument by operator, schema name and type (square 3x3 tensors fit every
    operator; bitwise operators get integers, a `condition` is a bool mask)."""
    if type_ == "Tensor(a!)[]" and name == "out":
        return [tcore.empty([0]) for _ in range(2)]
    if type_.startswith("Tensor(a!)") and name == "out":
        return tcore.empty([0])
    if type_ in ("Tensor[]", "Tensor(a!)[]"):
        return [tcore.tensor((rng.random((3, 3)) + 0.5).astype(np.float32)) for _ in range(2)]
    if type_.startswith("Tensor") and name == "condition":
        return tcore.tensor(rng.random((3, 3)) > 0.5)
    if type_.startswith("Tensor") and op.startswith("bitwise"):
        return tcore.tensor(rng.integers(0, 16, (3, 3)))
    if type_.startswith("Tensor"):
        return tcore.tensor((rng.random((3, 3)) + 0.5).astype(np.float32))
    if op.startswith("bitwise") and type_ == "Scalar":
        return 6
    if "[]" in type_ or "[1]" in type_:
        return [3, 3] if name == "size" else [1, 2] if name in ("split_size", "split_sizes") else [0]
    if name in ("dim0", "dim1"):
        return 0 if name == "dim0" else 1
    if type_ in ("Scalar", "float"):
        return 2.0
    if type_ == "bool":
        return False
    if type_ == "ScalarType":
        return tcore.float64
    if type_.startswith("int") or type_ == "SymInt":
        return 1
    return None


def _clone(tcore, v):
    if isinstance(v, list) and v and isinstance(v[0], tcore.Tensor):
        return [tcore.clone(t) for t in v]
    return tcore.clone(v) if isinstance(v, tcore.Tensor) else v


def _outs_of_the_result_dtype(tcore, name, given):
    """The sample arguments with each empty float32 out replaced by one of the result's dtype where
    the operator refuses float32 (a generated out= overload takes its result's dtype only, as
    PyTorch's): the dtype its refusal names."""
    outs = [k for k, v in given.items() if isinstance(v, tcore.Tensor) and v.numel() == 0 and k.startswith("out")]
    if not outs:
        return given
    base, _, overload = name.partition(".")
    try:
        tcore.manual_seed(0)
        getattr(getattr(tcore.ops, base), overload or "default")(**{k: _clone(tcore, v) for k, v in given.items()})
    except RuntimeError as e:
        m = re.match(r"Expected out tensor to have dtype (\w+), but got float32 instead", str(e))
        if m:
            return {**given, **{k: tcore.empty([0], dtype=getattr(tcore, m.group(1))) for k in outs}}
    return given


def _method(args: dict, name: str):
    """self.name(**the others), or the attribute itself where the method is a property (x.mT)."""
    method = getattr(args.pop("self"), name)
    return method(**args) if callable(method) else method


def _keyword_outs(schema: str) -> list[str]:
    """The out= tensors of an overload: its keyword-only mutable tensors (max.dim_max's max and
    max_values; not batch norm's running statistics, which are positional)."""
    arguments = schema.split("(", 1)[1].rsplit(") ->", 1)[0]
    keywords = arguments.split("*, ", 1)[1] if "*, " in arguments else ""
    return re.findall(r"Tensor\(\w!\) (\w+)", keywords)


def test_every_registered_operator_matches_the_typed_call(tcore, registry):
    assert len(registry) == len(tcore._C._schemas())
    checked = 0
    for name, schema, arguments, returns in registry:
        rng = np.random.default_rng(0)
        given = {}
        for arg, type_, has_default, _, _ in arguments:
            v = _value(tcore, name, arg, type_, rng)
            if v is not None or not has_default:
                given[arg] = v
        given = _outs_of_the_result_dtype(tcore, name, given)
        boxed_args = {k: _clone(tcore, v) for k, v in given.items()}
        typed_args = {k: _clone(tcore, v) for k, v in given.items()}
        outs = _keyword_outs(schema)
        if len(outs) > 1:  # several outs: the binding takes them as one out= tuple, as torch
            typed_args["out"] = tuple(typed_args.pop(a) for a in outs)
        base, _, overload = name.partition(".")
        tcore.manual_seed(0)  # the random operators draw the same numbers on both paths
        boxed = getattr(getattr(tcore.ops, base), overload or "default")(**boxed_args)
        tcore.manual_seed(0)
        # (unique_consecutive's Python form drops the outputs not asked for: the binding's are the operator's)
        fn = (tcore._C.unique_consecutive if base == "unique_consecutive" else None) or \
            getattr(tcore, base, None) or getattr(tcore._C, base, None) or next(  # python_module: tcore._C._nn...
            (getattr(tcore._C, '_' + m).__dict__[base] for m in tcore._C._python_modules
             if base in getattr(tcore._C, '_' + m).__dict__), None)
        try:
            typed = fn(**typed_args) if fn is not None else _method(typed_args, base)
        except TypeError:  # a method-only overload with the same name as a function
            typed = _method(typed_args, base)
        if base.startswith("empty"):
            assert boxed.shape == typed.shape, name
        elif base == "resize_":  # the elements past the old ones are not initialized
            assert boxed.shape == typed.shape, name
            np.testing.assert_array_equal(boxed.reshape(-1)[:9].numpy(), typed.reshape(-1)[:9].numpy())
        elif typed is None:  # an in-place operator on a list (_foreach_add_): what it wrote
            assert boxed is None, name
            for got, want in zip(boxed_args["self"], typed_args["self"]):
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, err_msg=schema)
        elif not isinstance(typed, (tuple, list, tcore.Tensor)):  # bool (allclose, equal)
            assert boxed == typed, name
        elif isinstance(typed, (tuple, list)):  # several outputs (max.dim: values, indices), Tensor[] (split)
            assert len(boxed) == len(typed), name
            for got, want in zip(boxed, typed):
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, err_msg=schema)
        else:
            np.testing.assert_allclose(boxed.numpy(), typed.numpy(), rtol=1e-6, err_msg=schema)
        checked += 1
    assert checked == len(registry)


def test_overload_resolution_and_schemas(tcore):
    a, b = tcore.ones(2), tcore.full([2], 3.0)
    assert tcore.ops.add(a, b).numpy().tolist() == [4.0, 4.0]  # add.Tensor
    assert tcore.ops.add(a, 5).numpy().tolist() == [6.0, 6.0]  # add.Scalar
    out = tcore.empty([0])
    tcore.ops.add(a, b, alpha=2, out=out)  # add.out
    assert out.numpy().tolist() == [7.0, 7.0]
    schemas = tcore.ops.schemas()
    assert "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" in schemas
    assert repr(tcore.ops.add.Tensor) == "tcore::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"


def test_bad_arguments(tcore):
    a = tcore.ones(2)
    with pytest.raises(TypeError, match="argument 'other' must be Tensor, not str"):
        tcore.ops.add.Tensor(a, "x")
    with pytest.raises(TypeError, match="missing required argument 'other'"):
        tcore.ops.add.Tensor(a)
    with pytest.raises(TypeError, match="unexpected keyword argument 'beta'"):
        tcore.ops.add.Tensor(a, a, beta=1)
    with pytest.raises(TypeError, match="no overload of tcore::mm accepts"):
        tcore.ops.mm(a)
    with pytest.raises(AttributeError, match="no operator tcore::nope"):
        tcore.ops.nope
    with pytest.raises(AttributeError, match="has no overload 'Nope'"):
        tcore.ops.add.Nope
