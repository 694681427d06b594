"""scripts/check_pytorch_codegen.py on a fixed sample: the first generated file of each kind for
PyTorch 2.13's whole YAML, in both header modes, compiles (-fsyntax-only) against tcore's headers.
(The autograd shards, PyTorch's formulas written against ATen's API, are counted by the script,
not compiled here.)"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_sample_of_pytorch_tree_compiles(pytorch_dir, tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    import check_pytorch_codegen

    out = tmp_path / "report.json"
    rc = check_pytorch_codegen.main(["--sample", "1", "--kinds", "dispatch,jit,python", "--work", str(tmp_path / "w"),
                                     "--json", str(out)])
    assert rc == 0
    report = json.loads(out.read_text())
    for mode in ("per-operator", "monolithic"):
        kinds = report["modes"][mode]["kinds"]
        for kind in ("dispatch", "jit", "python"):
            assert kinds[kind]["files"] == 1 and kinds[kind]["errors"] == 0, (mode, kind, kinds[kind]["top"])
    assert report["modes"]["per-operator"]["generated_files"] > 4000
