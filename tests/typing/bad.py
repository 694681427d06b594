"""A program with type errors that mypy must reject (tests/test_stubs.py): one on each
line with a trailing error comment."""
import tcore

x = tcore.ones(2, 3)
tcore.add(x, "one")  # error: a str is not a Tensor or a number
x.sum(dim="rows")  # error: dim is an int or a list of ints
name: str = tcore.exp(x)  # error: exp returns a Tensor
tcore.mm(x)  # error: mm needs two tensors
x.transpose(0)  # error: transpose needs two dims
tcore.zeros(2, 3, dtype="float32")  # error: dtype is a tcore.dtype
x["a"]  # error: an index is an int, a slice, None or ...
bad_field = x.max(0).maximum  # error: max(dim) has values and indices
tcore.gelu(x)  # error: gelu is tcore.nn.functional's (python_module: nn), as in torch
tcore.linalg.vecdot(x, x, -1)  # error: vecdot's dim is keyword-only
tcore.special.expit(x, 2)  # error: expit takes one tensor
