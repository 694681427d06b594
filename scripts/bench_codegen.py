#!/usr/bin/env python3
"""Code generation at PyTorch scale, side by side with torchgen in one run.

Both generate everything for PyTorch 2.13's native_functions.yaml (2,584 entries) and
derivatives.yaml: per-operator headers, dispatch and Meta registrations, autograd (backward
nodes, forward formulas, the in-place/view layer), unboxing, trace, Python bindings. Cold,
again with nothing changed, and after a one-entry edit (_cast_Byte's non_blocking default).
tcore runs through its doit pipeline (`doit codegen` with TCORE_NATIVE_FUNCTIONS_PATH,
TCORE_TAGS_PATH, TCORE_DERIVATIVES_PATH, TCORE_GEN_DIR), as a user would; torchgen runs as
PyTorch's build does, from the torch wheel: `python -m torchgen.gen --per-operator-headers`,
then the autograd generators (gen_autograd, gen_autograd_python); its time is their sum.
"headers only" rows compare tcore's CLI without autograd with torchgen.gen alone. Prints a
table and writes build/bench/codegen.json. Not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pytorch_yaml import pytorch_yaml_dir, torchgen_dir  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# a default changed in an operator without out= or in-place twins (torchgen insists that
# a group's overloads agree, so an edit to one of them alone is rejected there)
EDIT = ("- func: _cast_Byte(Tensor self, bool non_blocking=False) -> Tensor",
        "- func: _cast_Byte(Tensor self, bool non_blocking=True) -> Tensor")


def mtimes(folder: Path) -> dict[str, int]:
    """Generated files only: doit's database and the parse caches live beside them."""
    if not folder.exists():
        return {}
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*")
            if p.is_file() and p.suffix in (".h", ".cpp", ".cmake", ".yaml", ".py", ".pyi")}


def run(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds: user + system of the command and its children, system seconds)"""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    system = after.ru_stime - usage.ru_stime
    return elapsed, (after.ru_utime - usage.ru_utime) + system, system


def measure(label: str, cmd, cwd, out: Path, env=None) -> dict:
    """cmd: one command line, or several run one after the other (their times add up)."""
    before = mtimes(out)
    times = [run(c, cwd, env) for c in (cmd if isinstance(cmd[0], list) else [cmd])]
    after = mtimes(out)
    written = sum(1 for f, m in after.items() if before.get(f) != m)
    return {"run": label, "seconds": round(sum(t[0] for t in times), 3),
            "cpu_seconds": round(sum(t[1] for t in times), 3), "system_seconds": round(sum(t[2] for t in times), 3),
            "files_written": written, "files": len(after)}


def file_creation_ms(folder: Path, n: int = 300) -> float:
    """What creating a file costs on this disk now (ms; created, written, renamed, removed). On a
    VM whose disk is throttled after heavy I/O this went from 0.05 to 0.6 ms, and a cold run that
    creates 4,669 files with it; the figure is printed beside the table."""
    probe = folder / "probe"
    probe.mkdir()
    start = time.perf_counter()
    for i in range(n):
        tmp = probe / f".{i}.tmp"
        tmp.write_bytes(b"x" * 3000)
        tmp.replace(probe / f"{i}.h")
    elapsed = time.perf_counter() - start
    shutil.rmtree(probe)
    return 1000 * elapsed / n


def edit_once(path: Path) -> None:
    text = path.read_text()
    assert EDIT[0] in text
    path.write_text(text.replace(EDIT[0], EDIT[1], 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", default=str(ROOT / "build" / "bench" / "codegen.json"))
    parser.add_argument("--skip-torchgen", action="store_true")
    args = parser.parse_args()
    yaml_dir = pytorch_yaml_dir()
    if yaml_dir is None:
        sys.exit("PyTorch's YAML is not available (no torch wheel on this machine)")
    results: dict[str, list[dict]] = {"tcore": [], "torchgen": []}
    # as a user runs them: bytecode cached (this workplace sets PYTHONDONTWRITEBYTECODE, which makes
    # every run compile ~180 modules again, 0.1 s)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="tcore-bench-codegen-") as tmp:
        tmp = Path(tmp)
        # tcore, through doit
        native = tmp / "native_functions.yaml"
        shutil.copy(yaml_dir / "native_functions.yaml", native)
        gen = tmp / "tcore-gen"
        env = {**os.environ, "TCORE_NATIVE_FUNCTIONS_PATH": str(native), "TCORE_TAGS_PATH": str(yaml_dir / "tags.yaml"),
               "TCORE_DERIVATIVES_PATH": str(yaml_dir / "derivatives.yaml"), "TCORE_GEN_DIR": str(gen)}
        doit = [sys.executable, "-m", "doit", "codegen"]
        disk_ms = file_creation_ms(tmp)
        results["tcore"].append(measure("cold", doit, ROOT, gen, env))
        results["tcore"].append(measure("no-op", doit, ROOT, gen, env))
        edit_once(native)
        results["tcore"].append(measure("one-entry edit", doit, ROOT, gen, env))
        # tcore's CLI, cold, without any cache
        cli_out = tmp / "tcore-cli"
        results["tcore"].append(measure("headers only, cold (CLI, no cache)", [
            sys.executable, "-m", "codegen.generate_code", "--native-functions-path", str(yaml_dir / "native_functions.yaml"),
            "--tags-path", str(yaml_dir / "tags.yaml"), "--install-dir", str(cli_out), "--per-operator-headers",
            "--subset", "libtorch", "--disable-autograd"], ROOT, cli_out))
        if not args.skip_torchgen:
            src = torchgen_dir()
            if src is None:
                sys.exit("torchgen is not available (no torch wheel)")
            aten = tmp / "ATen"
            shutil.copytree(src / "torchgen" / "packaged" / "ATen", aten)
            out = tmp / "torchgen-out"
            headers = [sys.executable, "-m", "torchgen.gen", "-s", str(aten), "-d", str(out), "--per-operator-headers"]
            nf, tags = aten / "native" / "native_functions.yaml", aten / "native" / "tags.yaml"
            autograd_dir = src / "torchgen" / "packaged" / "autograd"
            autograd = [sys.executable, "-c", (
                "import sys; from torchgen.packaged.autograd.gen_autograd import gen_autograd, gen_autograd_python;"
                "from torchgen.selective_build.selector import SelectiveBuilder as S;"
                "gen_autograd(*sys.argv[1:5], S.get_nop_selector()); gen_autograd_python(*sys.argv[1:5])"),
                str(nf), str(tags), str(out / "autograd"), str(autograd_dir)]
            (out / "autograd").mkdir(parents=True)
            results["torchgen"].append(measure("headers only, cold (CLI, no cache)", headers, src, out))
            shutil.rmtree(out)
            (out / "autograd").mkdir(parents=True)
            results["torchgen"].append(measure("cold", [headers, autograd], src, out))
            results["torchgen"].append(measure("no-op", [headers, autograd], src, out))
            edit_once(nf)
            results["torchgen"].append(measure("one-entry edit", [headers, autograd], src, out))

    from rich.console import Console
    from rich.table import Table

    table = Table(title="everything generated for PyTorch's native_functions.yaml (2,584 entries) and derivatives.yaml; "
                        f"creating a file cost {disk_ms:.2f} ms before the cold run")
    for col in ("run", "tcore s", "CPU s (system)", "files written", "torchgen s", "CPU s (system) ", "files written ",
                "tcore / torchgen", "CPU ratio"):
        table.add_column(col, justify="left" if col == "run" else "right")
    tg = {r["run"]: r for r in results["torchgen"]}
    for r in results["tcore"]:
        t = tg.get(r["run"])
        table.add_row(r["run"], f"{r['seconds']:.3f}", f"{r['cpu_seconds']:.2f} ({r['system_seconds']:.2f})",
                      str(r["files_written"]), f"{t['seconds']:.3f}" if t else "-",
                      f"{t['cpu_seconds']:.2f} ({t['system_seconds']:.2f})" if t else "-",
                      str(t["files_written"]) if t else "-", f"{r['seconds'] / t['seconds']:.3f}" if t else "-",
                      f"{r['cpu_seconds'] / t['cpu_seconds']:.3f}" if t else "-")
    Console().print(table)
    results["file_creation_ms"] = round(disk_ms, 3)
    out_json = Path(args.json)
    out_json.parent.mkdir(parents=True, exist_ok=True)
    out_json.write_text(json.dumps(results, indent=2))
    print(f"wrote {out_json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
