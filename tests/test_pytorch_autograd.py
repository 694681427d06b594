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
