"""Generated code never collides with the schema's names: operators whose arguments are named
after every name the generated C++ declares or calls (codegen.api.cpp.GENERATED_NAMES: `key`,
`result`, `grad_fn`, `args`...), every identifier in the templates' own text, C++ keywords and the
names of derivatives.yaml's language, with backward and forward formulas that use them, go through
the generator with tcore's own YAML; every generated C++ file that holds them compiles
(-fsyntax-only), and each name is renamed only where it must be."""
from __future__ import annotations

import concurrent.futures
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from codegen import generate_code
from codegen.api import cpp

ROOT = Path(__file__).resolve().parent.parent
# the list, and names that the generated code spells with a suffix or prefix of its own
EXTRA = {"key", "result", "out", "self_", "grad", "stack", "options", "dispatch_key", "default", "from", "this",
         "operator", "new", "x_arg", "i", "base", "base_", "s", "given", "m", "cls", "nogil", "e", "r", "g",
         "below", "tcore", "std", "ops", "detail", "name_", "out_"}
# keys of a derivatives.yaml entry: an argument so named can have no formula of its own
ENTRY_KEYS = {"name", "output_differentiability", "dispatch", "result"}
YAML_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}  # keys YAML reads as other types


def _template_identifiers() -> set[str]:
    """Lower-case identifiers in the C++ text of the templates (Jinja, comments, strings removed)."""
    names: set[str] = set()
    for path in (ROOT / "codegen" / "templates").glob("*.cpp.j2"):
        text = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", " ", path.read_text(), flags=re.S)
        text = re.sub(r'//[^\n]*|"(?:\\.|[^"\\])*"', " ", text)
        names.update(m.group(1) for m in re.finditer(r"(?<![\w.:>])([a-z][a-z0-9_]*)\b", text))
    return names


def adversarial_names() -> list[str]:
    names = (cpp.GENERATED_NAMES | EXTRA | _template_identifiers()) - {"self"}
    names -= {n for n in names if not re.fullmatch(r"[a-z_][a-z0-9_]*", n) or n.startswith("__")}
    return sorted(names)


def _yaml(names: list[str]) -> tuple[str, str]:
    args = ", ".join(f"Tensor {n}" for n in names)
    schema = f"adv_names(Tensor self, {args}, int dim=0, float[]? scales=None, str[] tags=[], bool[] flags=[]) -> Tensor"
    outs = "adv_outs(Tensor self, Tensor grad_fn, Tensor args) -> (Tensor key, Tensor below)"
    functions = f"""
- func: {schema}
  variants: function
  dispatch:
    CompositeExplicitAutograd: adv_names

- func: adv_names_(Tensor(a!) self, {args}) -> Tensor(a!)
  variants: function
  dispatch:
    CompositeExplicitAutograd: adv_names_

- func: adv_names.out(Tensor self, Tensor key, *, Tensor(a!) out_arg) -> Tensor(a!)
  variants: function
  dispatch:
    CompositeExplicitAutograd: adv_names_out

- func: {outs}
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: adv_outs
"""
    formulas = [f"  {n}: mul(grad, {n})" for n in names
                if n not in ENTRY_KEYS | YAML_WORDS and n not in cpp.LANGUAGE_NAMES]
    formulas.append("  self: add(add(mul(grad, key), mul(grad, args)), mul(grad, grad_fn))")
    body = "\n".join(formulas)
    derivatives = f"""
- name: {schema}
{body}
  result: auto_element_wise

- name: adv_names_(Tensor(a!) self, {args}) -> Tensor(a!)
  self: mul(grad, key)
  key: mul(grad, self)
  result: add(mul(self_t, key_p), mul(key_t, self_p))

- name: {outs}
  self: add(mul(grad_key, grad_fn), mul(grad_below, args))
  grad_fn: mul(grad_key, self)
  args: mul(grad_below, key)
  key: mul(self_t, grad_fn_p)
  below: mul(args_t, self_p)
"""
    return functions, derivatives


def test_renaming_is_one_to_one_and_minimal():
    names = adversarial_names() + ["self", "other", "input", "weight", "x_arg_arg", "key_arg"]
    mapped = [cpp.cpp_ident(n) for n in names]
    assert len(set(mapped)) == len(set(names))
    assert cpp.cpp_ident("self") == "self" and cpp.cpp_ident("other") == "other"
    assert cpp.cpp_ident("key") == "key_arg" and cpp.cpp_ident("key_arg") == "key_arg_arg"
    assert cpp.rename_in_formula("mul(grad, key) + key_t * x.key + key_p", ["key", "grad"]) == \
        "mul(grad, key_arg) + key_arg_t * x.key + key_arg_p"


def generate_with(tmp: Path, functions: str, derivatives: str) -> Path:
    """tcore's YAML plus these entries through the generator (per-operator headers, 2 shards)."""
    nf, dy = tmp / "native_functions.yaml", tmp / "derivatives.yaml"
    nf.write_text((ROOT / "csrc/native/native_functions.yaml").read_text() + functions)
    dy.write_text((ROOT / "csrc/autograd/derivatives.yaml").read_text() + derivatives)
    out = tmp / "gen"
    rc = generate_code.main(["--native-functions-path", str(nf), "--tags-path", str(ROOT / "csrc/native/tags.yaml"),
                             "--derivatives-path", str(dy), "--install-dir", str(out), "--per-operator-headers",
                             "--num-shards", "2"])
    assert rc == 0
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return generate_with(tmp_path_factory.mktemp("names"), *_yaml(adversarial_names()))


def _syntax_check(generated: Path, files: list[Path]) -> list[str]:
    """-fsyntax-only of each file against tcore's headers and the generated ones, two at a time."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    try:
        import nanobind
    except ImportError:
        pytest.skip("nanobind is not installed")
    if not (ROOT / "build" / "tcore_build_config.h").exists():
        pytest.skip("no build/tcore_build_config.h (run doit first)")
    flags = ["-std=c++17", "-fsyntax-only", "-DTCORE_WITH_AUTOGRAD=1", f"-I{generated}", f"-I{ROOT / 'csrc/include'}",
             f"-I{ROOT / 'csrc'}", f"-I{ROOT / 'build'}", f"-I{nanobind.include_dir()}",
             f"-I{sysconfig.get_paths()['include']}"]

    def compile_one(path: Path) -> tuple[Path, str]:
        r = subprocess.run([cxx, *flags, str(path)], capture_output=True, text=True)
        errors = [line for line in r.stderr.splitlines() if "error" in line]
        return path, "" if r.returncode == 0 else "\n".join(errors[:6]) or r.stderr[-2000:]

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return [f"{p.relative_to(generated)}:\n{e}" for p, e in pool.map(compile_one, files) if e]


def test_every_generated_file_compiles(generated):
    files = sorted(p for p in generated.rglob("*.cpp") if "adv_" in p.read_text())
    kinds = {p.parent.name for p in files}
    assert {"dispatch", "autograd", "jit", "python"} <= kinds, kinds
    failures = _syntax_check(generated, files)
    assert not failures, "\n\n".join(failures)


def test_without_per_operator_headers_everything_compiles(tmp_path):
    """The default header mode (Functions.h, Operators.h, NativeFunctions.h): every file includes
    only headers that this mode writes, and compiles."""
    out = tmp_path / "gen"
    rc = generate_code.main(["--native-functions-path", str(ROOT / "csrc/native/native_functions.yaml"),
                             "--tags-path", str(ROOT / "csrc/native/tags.yaml"),
                             "--derivatives-path", str(ROOT / "csrc/autograd/derivatives.yaml"),
                             "--install-dir", str(out), "--num-shards", "2"])
    assert rc == 0
    assert not (out / "tcore" / "ops").exists()
    files = sorted(out.rglob("*.cpp"))
    for path in files:
        for header in re.findall(r"#include <(tcore/[^>]+)>", path.read_text()):
            assert (out / header).exists() or (ROOT / "csrc/include" / header).exists(), (path.name, header)
    failures = _syntax_check(out, files)
    assert not failures, "\n\n".join(failures)


def test_names_reach_python_and_stubs_unchanged(generated):
    text = "".join(p.read_text() for p in (generated / "python").glob("python_functions_*.cpp"))
    assert 'nb::arg("key")' in text and 'nb::arg("grad_fn")' in text  # Python sees the schema's names
    stubs = "".join(p.read_text() for p in (generated / "python").rglob("*.pyi"))
    assert re.search(r"def adv_outs\(.*grad_fn", stubs)
    assert "key_arg" not in stubs


def test_tcore_names_unchanged():
    """tcore's own operators keep their argument names in the C++ API, except `from` (random_.from),
    `grad` (the backward operators' incoming gradient) and `result` (the out= tensor of
    _linalg_solve_ex.result and _linalg_det.result, as torch names it): names of the formula language."""
    headers = sorted((ROOT / "generated" / "tcore" / "ops").glob("*.h"))
    if not headers:
        pytest.skip("not generated (run doit first)")
    renamed = {m for p in headers for m in re.findall(r"\b\w+_arg\b", p.read_text())}
    assert renamed <= {"from_arg", "grad_arg", "result_arg"}, renamed
