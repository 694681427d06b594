"""Every unit of the generation plan renders exactly the files it declares (the doit tasks list a
unit's declared outputs as its targets; a file rendered but not declared would never be cleaned or
checked for staleness, one declared but not rendered would make every run regenerate it)."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NATIVE = ROOT / "csrc/native"


def _plan(yaml_dir: Path, derivatives_path: Path, **options):
    from codegen.derivatives import load_checked
    from codegen.load import load_operator_set
    from codegen.plan import Options, make_plan

    selected = options.pop("selected", None)
    opset = load_operator_set(str(yaml_dir / "native_functions.yaml"), str(yaml_dir / "tags.yaml"))
    derivatives, deprecated = load_checked(str(derivatives_path), opset.schemas(), opset.autogen_names())
    if selected is not None:
        selected = frozenset(sorted(opset.schemas())[:selected])
    return make_plan(opset, Options(**options), derivatives, deprecated, selected)


def _check(units) -> int:
    declared: dict[str, str] = {}
    for unit in units:
        rendered = unit.render()
        assert sorted(rendered) == sorted(unit.outputs), unit.name
        assert len(set(unit.outputs)) == len(unit.outputs), unit.name
        for path in unit.outputs:  # no two units write one file
            assert declared.setdefault(path, unit.name) == unit.name, (path, declared[path], unit.name)
    return len(declared)


@pytest.mark.parametrize("options", [
    dict(),
    dict(per_operator_headers=False),
    dict(disable_autograd=True),
    dict(subsets=frozenset({"libtorch"})),
    dict(subsets=frozenset({"pybindings"})),
    dict(subsets=frozenset({"python"})),
    dict(num_shards=2),
    dict(selected=20),
], ids=["default", "monolithic", "no-autograd", "libtorch", "pybindings", "python", "2-shards", "selective"])
def test_every_unit_renders_what_it_declares(options):
    assert _check(_plan(NATIVE, ROOT / "csrc/autograd/derivatives.yaml", **options)) > 0


@pytest.mark.parametrize("per_operator_headers", [True, False], ids=["per-operator", "monolithic"])
def test_pytorch_plan_renders_what_it_declares(pytorch_dir, per_operator_headers):
    """PyTorch's operators take the bucketed per-operator units (over BUCKET_THRESHOLD roots)."""
    count = _check(_plan(Path(pytorch_dir), Path(pytorch_dir) / "derivatives.yaml",
                         per_operator_headers=per_operator_headers))
    assert count > (3000 if per_operator_headers else 100)


def test_an_operator_that_formulas_call_changes_only_the_shards_that_call_it(tmp_path):
    """Adding an operator that existing formulas call (gelu_backward, once a helper) changes the
    autograd shard whose formulas call it (it now includes the operator's header) and no other
    autograd shard: a stale shard would not compile, a needless one would recompile."""
    import shutil

    without = tmp_path / "without"
    without.mkdir()
    shutil.copy(NATIVE / "tags.yaml", without / "tags.yaml")
    text = (NATIVE / "native_functions.yaml").read_text()
    for overload in ("- func: gelu_backward(", "- func: gelu_backward.grad_input("):  # the operator, all of it
        entry = text[text.index(overload):]
        text = text.replace(entry[:entry.index("\n\n") + 2], "")
    (without / "native_functions.yaml").write_text(text)
    derivatives = ROOT / "csrc/autograd/derivatives.yaml"
    formulas = derivatives.read_text()  # and its own derivatives entry (a kernel's double backward)
    entry = formulas[formulas.index("- name: gelu_backward("):]
    (without / "derivatives.yaml").write_text(formulas.replace(entry[:entry.index("\n\n") + 2], ""))

    def autograd_digests(yaml_dir, formulas_path):
        return {u.name: u.digest for u in _plan(yaml_dir, formulas_path) if u.name.startswith("autograd:")}

    before, after = autograd_digests(without, without / "derivatives.yaml"), autograd_digests(NATIVE, derivatives)
    changed = sorted(k for k in after if after[k] != before.get(k))
    from codegen.plan import shard_of

    callers = {shard_of(r, len(after)) for r in ("gelu", "gelu_backward")}
    assert changed and {int(k.split(":")[1]) for k in changed} <= callers, changed
    assert f"autograd:{shard_of('gelu', len(after))}" in changed  # the caller's shard, not only the new operator's
