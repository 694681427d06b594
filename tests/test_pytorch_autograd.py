"""PyTorch's own derivatives.yaml (torch 2.13) through tcore's autograd generator: every
entry generates (grouped formulas, Tensor? and list arguments saved, multi-output and
list-output operators, output_differentiability conditions, non_differentiable inputs),
forward formulas too, and the in-place-or-view kernels of PyTorch's view operators."""
from __future__ import annotations

import re

from codegen import generate_code


def test_pytorch_derivatives_generate(pytorch_dir, tmp_path):
    out = tmp_path / "gen"
    rc = generate_code.main(["--native-functions-path", str(pytorch_dir / "native_functions.yaml"),
                             "--tags-path", str(pytorch_dir / "tags.yaml"),
                             "--derivatives-path", str(pytorch_dir / "derivatives.yaml"),
                             "--install-dir", str(out), "--per-operator-headers"])
    assert rc == 0
    text = "\n".join(p.read_text() for p in sorted((out / "autograd").glob("Functions_*.cpp")))
    nodes = re.findall(r"struct \w+ final : Node", text)
    assert len(nodes) > 700  # 767 with torch 2.13: one per entry and per in-place twin
    assert "grad_input_mask" in text  # grouped formulas
    assert "set_fw_grad" in text  # forward formulas
    views = re.findall(r"register_kernel<ops::(\w+)>\(DispatchKey::InplaceOrView", text)
    assert {"transpose_int", "select_int", "split_Tensor", "diagonal", "as_strided"} <= set(views)
    # an operator without a forward formula raises at run time, never a silent zero
    assert 'fw_not_implemented("' in text

    # a grouped formula over a Tensor[] input writes that input's edge range (_cudnn_rnn's weight)
    rnn = text[text.index("// formula: _cudnn_rnn input, hx, cx, weight"):]
    rnn = rnn[:rnn.index("}\n    }")]
    assert "assign_range(grad_inputs, weight_edges_, std::move(std::get<3>(formula_grads)));" in rnn
    assert "should_compute_any(weight_edges_)" in rnn and "grad_inputs[1] =" not in rnn
    # a formula calling a function named like a saved argument: the local is renamed, the call
    # finds the function (_to_sparse's layout(self))
    assert re.search(r"const auto layout_value = this->layout_;", text)
    assert "to_sparse_backward(grad, layout(self), sym_blocksize(self))" in text
    # auto_linear passes non-differentiable arguments as they are (index's integer indices)
    assert "ops::index_Tensor::call(fw_tangent_arg(self), indices)" in text
    # an optional input's primal in a forward formula is undefined when absent (toNonOptPrimal)
    assert "layer_norm_jvp(input, input_t, weight.value_or(Tensor()), weight_t, bias.value_or(Tensor()), bias_t" in text
