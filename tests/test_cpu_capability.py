"""Kernels compiled once per CPU capability (cmake/cpu_capabilities.txt) and chosen at load
time: the choice and its override (TCORE_CPU_CAPABILITY), the same results from every
capability, symbols kept apart, nothing capability-specific running at load time, the build
graph (one kernel source -> one object per capability), and the build running on CPUs
without AVX / AVX-512 (emulated by qemu-user)."""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
NAMES = ("default", "avx2", "avx512")

# every capability computes these; float results may differ in the last bits (FMA contraction,
# vector widths), integer and comparison results may not. The inputs are uniforms (the same bits
# everywhere); randn's values may differ in their last bits (SLEEF with and without FMA), but
# every capability draws as many numbers from the engine, so what follows is the same.
PROGRAM = r"""
import json, tcore
g = tcore.Generator().manual_seed(7)
x = (tcore.rand(4097, generator=g) - 0.5) * 6
m = (tcore.rand(33, 65, generator=g) - 0.5) * 4
normals = tcore.randn(1001, generator=g)
i = tcore.randint(-1000, 1000, (5000,), generator=g)
out = {
    "randn": normals.tolist(),
    "capability": tcore.backends.cpu.get_cpu_capability(),
    "exp": x.exp().tolist(), "tanh": x.tanh().tolist(), "sigmoid": x.sigmoid().tolist(),
    "add": (x + 1.5).tolist(), "softmax": m.softmax(1).tolist(), "logsumexp": m.logsumexp(0).tolist(),
    "mm": (m @ m.t()).tolist(), "sum": float(x.sum()), "abs_sum": float(x.abs().sum()), "cumsum": x.cumsum(0).tolist(),
    "int_mul": (i * 7 + i // 3).tolist(), "int_sum": int(i.sum()), "sort": i.sort().values.tolist(),
    "lt": (x < 0.5).tolist(), "argmax": m.argmax(1).tolist(), "relu": x.relu().tolist(),
}
# float16/bfloat16 rows computed in float32 and rounded once (65: four blocks of sixteen and a tail)
wb = tcore.rand(2, 65, generator=g) + 0.5
for dt in ("bfloat16", "float16"):
    h = m.to(getattr(tcore, dt))
    w, b = wb[0].to(h.dtype), wb[1].to(h.dtype)
    out[dt] = {"m": h.float().tolist(), "w": w.float().tolist(), "b": b.float().tolist(),
               "layer_norm": tcore.nn.functional.layer_norm(h, [65], w, b).float().tolist(),
               "layer_norm_plain": tcore.nn.functional.layer_norm(h, [65]).float().tolist(),
               "layer_norm_w": tcore.nn.functional.layer_norm(h, [65], w).float().tolist(),
               "layer_norm_b": tcore.nn.functional.layer_norm(h, [65], None, b).float().tolist(),
               "softmax": h.softmax(1).float().tolist()}
print(json.dumps(out))
"""


def run(code: str, capability: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TCORE_CPU_CAPABILITY"}
    if capability is not None:
        env["TCORE_CPU_CAPABILITY"] = capability
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def program_json(code: str, capability: str) -> dict:
    """What `code` prints last, as JSON, run at `capability` (a CPU without it: the best below)."""
    r = run(code, capability)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def table(tcore):
    return {c["name"]: c for c in tcore.backends.cpu.capabilities()}


def best_below(tcore, name: str) -> str:
    chosen = "default"
    for c in tcore.backends.cpu.capabilities():
        if c["compiled"] and c["supported"]:
            chosen = c["name"]
        if c["name"] == name:
            break
    return chosen.upper()


def test_the_table_is_the_data_file(tcore):
    rows = [line.split()[0] for line in (ROOT / "cmake/cpu_capabilities.txt").read_text().splitlines()
            if line and not line.startswith("#")]
    assert tuple(rows) == NAMES
    assert [c["name"] for c in tcore.backends.cpu.capabilities()] == list(NAMES)
    assert table(tcore)["default"]["compiled"] and table(tcore)["default"]["supported"]


def test_the_best_supported_capability_is_chosen(tcore):
    assert tcore.backends.cpu.get_cpu_capability() == best_below(tcore, NAMES[-1])
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    if " avx512f " in flags and " avx512bw " in flags and table(tcore)["avx512"]["compiled"]:
        assert tcore.backends.cpu.get_cpu_capability() == "AVX512"


@pytest.mark.parametrize("name", ["default", "avx2", "avx512", "AVX2", " avx2"[1:]])
def test_the_override_picks_a_capability(tcore, name):
    r = run("import tcore; print(tcore.backends.cpu.get_cpu_capability())", name)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == best_below(tcore, name.lower())


@pytest.mark.parametrize("value", ["avx1024", "sse", "default,avx2", "native"])
def test_an_unknown_override_is_a_clear_error(value):
    r = run("import tcore", value)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last == (f"RuntimeError: TCORE_CPU_CAPABILITY={value} is not a CPU capability: use one of "
                    "default, avx2, avx512 (or leave it unset for the best this CPU has)"), r.stderr


def test_every_capability_computes_the_same(tcore):
    import json

    import numpy as np

    results = {}
    for name in NAMES:
        r = run(PROGRAM, name)
        assert r.returncode == 0, r.stderr
        results[name] = json.loads(r.stdout)
        assert results[name]["capability"] == best_below(tcore, name)
    base = results["default"]
    for name in NAMES[1:]:
        other = results[name]
        for key in ("int_mul", "int_sum", "sort", "lt", "argmax", "relu", "add"):
            assert other[key] == base[key], (name, key)
        # a float32 sum's rounding error is bounded by the sum of magnitudes, not by the result
        # (the capabilities add in lanes of different widths): 4097 terms, a bound of 1e-6 * sum|x|
        assert abs(other["sum"] - base["sum"]) <= 1e-6 * base["abs_sum"], (name, other["sum"], base["sum"])
        for key in ("exp", "tanh", "sigmoid", "softmax", "logsumexp", "mm", "cumsum", "randn"):
            np.testing.assert_allclose(np.array(other[key]), np.array(base[key]), rtol=2e-6, atol=1e-6,
                                       err_msg=f"{name} {key}")
    # float16/bfloat16 layer_norm and softmax: at every capability the float32 result (float64 here)
    # rounded once, so within one unit in the last place of the reduced type (2^-7 / 2^-10 relative)
    for name in NAMES:
        for dt, rel in (("bfloat16", 2.0**-7), ("float16", 2.0**-10)):
            r = results[name][dt]
            x, w, b = (np.array(r[k], dtype=np.float64) for k in ("m", "w", "b"))
            xhat = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
            e = np.exp(x - x.max(1, keepdims=True))
            for key, want in (("layer_norm", xhat * w + b), ("layer_norm_plain", xhat), ("layer_norm_w", xhat * w),
                              ("layer_norm_b", xhat + b), ("softmax", e / e.sum(1, keepdims=True))):
                np.testing.assert_allclose(np.array(r[key]), want, rtol=rel, atol=1e-6, err_msg=f"{name} {dt} {key}")


def _objects() -> dict[str, list[Path]]:
    root = BUILD / "CMakeFiles/tcore.dir"
    if not root.is_dir():
        pytest.skip("no build tree (run doit)")
    out = {"default": sorted((root / "csrc/native/cpu").glob("*.o")) + sorted((root / "generated/dispatch").glob("RegisterCPU_*.o"))}
    for name in NAMES[1:]:
        out[name] = sorted((root / f"cpu_{name}").rglob("*.o"))
    return out


def test_symbols_are_kept_apart(tcore):
    if shutil.which("nm") is None:
        pytest.skip("nm is needed (binutils)")
    lib = ROOT / "tcore/lib/libtcore.so"
    names = subprocess.run(["nm", "-C", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    for name in NAMES:
        if table(tcore)[name]["compiled"]:
            # structured kernels are their impl (add, exp, mm, softmax), the others functions (logsumexp)
            for kernel in ("structured_add_out::impl", "structured_exp_out::impl", "structured_softmax_out::impl",
                           "logsumexp", "structured_mm_out::impl"):
                assert re.search(rf"tcore::native::cpu_{name}::{kernel}\(", names), (name, kernel)
    # the CPU kernels live in a capability's namespace only
    for kernel in (r"structured_exp_out::impl\(", r"structured_mm_out::impl\(", r"structured_add_out::impl\("):
        assert not re.search(rf" tcore::native::{kernel}", names), kernel


def test_one_kernel_source_builds_one_object_per_capability(tcore):
    """The build graph: an edit of a kernel source recompiles its object for each compiled
    capability and nothing else (ninja's recorded dependencies)."""
    ninja = shutil.which("ninja")
    if ninja is None or not (BUILD / "build.ninja").exists():
        pytest.skip("no ninja build tree")
    deps = subprocess.run([ninja, "-C", str(BUILD), "-t", "deps"], capture_output=True, text=True, check=True).stdout
    users: dict[str, set[str]] = {}
    target = None
    for line in deps.splitlines():
        if line and not line.startswith(" "):
            target = line.split(":")[0]
        elif line.strip() and target:
            users.setdefault(os.path.normpath(os.path.join(BUILD, line.strip())), set()).add(target)
    compiled = [n for n in NAMES if table(tcore)[n]["compiled"]]
    for source in ("csrc/native/cpu/Pooling.cpp", "csrc/native/cpu/UnaryOps.cpp"):
        objects = users.get(str(ROOT / source), set())
        assert len(objects) == len(compiled), (source, sorted(objects))
        for name in compiled[1:]:
            assert any(f"cpu_{name}/" in o for o in objects), (name, sorted(objects))


def test_nothing_capability_specific_runs_at_load_time():
    """A kernel object's static initializers run on every CPU when libtcore loads, so those of
    the AVX2/AVX-512 objects may hold no vector (VEX/EVEX-encoded) instruction at all."""
    if shutil.which("objdump") is None:
        pytest.skip("objdump is needed (binutils)")
    checked = 0
    for name, objects in _objects().items():
        if name == "default":
            continue
        for o in objects:
            asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-j", ".text.startup", str(o)],
                                 capture_output=True, text=True).stdout
            bad = re.findall(r"^\s+[0-9a-f]+:\s+(v\w+|.*%[xyz]mm\d+.*)$", asm, re.M)
            assert not bad, (o, bad[:5])
            checked += 1
    assert checked or not any(_objects()[n] for n in NAMES[1:])


CPU_PROGRAM = r"""
import json, tcore
x = tcore.arange(0, 40000, dtype=tcore.float32) / 1000 - 20
m = x[:4096].reshape(64, 64)
print(json.dumps([tcore.backends.cpu.get_cpu_capability(), float(x.exp().sum()), float(x.tanh().sum()),
                  float(m.softmax(1).sum()), float((m @ m).sum()), int((x * 3).long().sum()),
                  x.sort(descending=True).values[:3].tolist()]))
"""


@pytest.mark.parametrize("cpu, expected", [("Nehalem", "DEFAULT"), ("IvyBridge", "DEFAULT"), ("Haswell", "AVX2")])
def test_runs_on_a_cpu_without_the_better_capabilities(tcore, emulated_cpu, cpu, expected):
    """Nehalem (SSE4.2, no AVX), Ivy Bridge (AVX but no AVX2/FMA), Haswell (AVX2, no AVX-512),
    emulated: the import, the choice and a few kernels; any AVX or AVX-512 instruction outside
    the chosen capability's code would stop the process with SIGILL."""
    import json

    r = emulated_cpu(cpu, CPU_PROGRAM)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    got = json.loads(r.stdout.strip().splitlines()[-1])
    native = run(CPU_PROGRAM, expected.lower())
    want = json.loads(native.stdout.strip().splitlines()[-1])
    if table(tcore)[expected.lower()]["compiled"]:
        assert got[0] == expected
    assert got[5:] == want[5:]  # integers and a sort: exact
    # floating sums: the emulated CPU gets other SLEEF and OpenBLAS code (its own choice of kernels)
    for a, b in zip(got[1:5], want[1:5]):
        assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (got, want)


HALF_PROGRAM = r"""
import json, numpy as np, tcore
h = np.arange(65536, dtype=np.uint16).view(np.float16)
f = h.astype(np.float32)
f = f[np.isfinite(f)]
x = np.concatenate([f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf)),
                    ((f[:-1].astype(np.float64) + f[1:]) / 2).astype(np.float32),  # ties round to even
                    np.float32([np.inf, -np.inf, np.nan, 65519.99, 65520, 1e-8, -1e-8, 3e38])]).astype(np.float32)
with np.errstate(all="ignore"):
    want_h = x.astype(np.float16)
bad = []
for name, t in (("contiguous", tcore.from_numpy(x.copy())), ("strided", tcore.from_numpy(np.stack([x, x], 1))[:, 1])):
    got = t.half().numpy()
    n = np.isnan(want_h)
    if not (np.array_equal(got.view(np.uint16)[~n], want_h.view(np.uint16)[~n]) and np.isnan(got[n]).all()):
        bad.append("float->half " + name)
    back = tcore.from_numpy(np.stack([h, h], 1))[:, 0].float().numpy() if name == "strided" else tcore.from_numpy(h.copy()).float().numpy()
    m = np.isnan(h)
    if not (np.array_equal(back.view(np.uint32)[~m], h.astype(np.float32).view(np.uint32)[~m]) and np.isnan(back[m]).all()):
        bad.append("half->float " + name)
# bfloat16: BFloat16::from_float's rounding (to nearest even; a NaN quieted, its sign and upper
# payload kept) on every bfloat16's neighbours and midpoints, and every bfloat16 widened
b = np.arange(65536, dtype=np.uint32)
bf = (b << 16).view(np.float32)
fin = bf[np.isfinite(bf)]
y = np.concatenate([bf, np.nextafter(fin, np.float32(np.inf)), np.nextafter(fin, np.float32(-np.inf)),
                    ((b[:-1] << 16) | 0x8000).view(np.float32), np.uint32([0x7f800001, 0xff812345, 0x7fc00000]).view(np.float32)])
u = y.view(np.uint32)
want_b = np.where(np.isnan(y), (u | 0x400000) >> 16, (u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
for name, t in (("contiguous", tcore.from_numpy(y.copy())), ("strided", tcore.from_numpy(np.stack([y, y], 1))[:, 1])):
    if not np.array_equal(t.bfloat16().view(tcore.int16).numpy().view(np.uint16), want_b):
        bad.append("float->bfloat16 " + name)
    bits = tcore.from_numpy(np.stack([b, b], 1).astype(np.uint16).view(np.int16))
    widened = (bits[:, 0] if name == "strided" else bits[:, 0].contiguous()).view(tcore.bfloat16).float().numpy()
    if not np.array_equal(widened.view(np.uint32), b << 16):
        bad.append("bfloat16->float " + name)
# bfloat16 arithmetic: computed in float32, rounded once (the bits above); 16k + 7 values, so that
# the vector loops and their tails both run, with NaN, inf and subnormals among them
def bf16_bits(v):
    u = v.astype(np.float32).view(np.uint32)
    return np.where(np.isnan(v), (u | 0x400000) >> 16, (u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
def as_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)
rng = np.random.default_rng(2)
p = as_bf16(rng.integers(0, 65536, 16391).astype(np.uint16))  # every kind of value
q = as_bf16(rng.integers(0, 65536, 16391).astype(np.uint16))
tp, tq = (tcore.from_numpy(bf16_bits(v).view(np.int16)).view(tcore.bfloat16) for v in (p, q))
with np.errstate(all="ignore"):
    for name, got, want in (("mul by a number", tp * 1.5, p * np.float32(1.5)), ("add", tp + tq, p + q),
                            ("mul", tp * tq, p * q), ("sub strided", tp[1::2] - tq[::2][:-1], p[1::2] - q[::2][:-1])):
        gb = got.contiguous().view(tcore.int16).numpy().view(np.uint16)
        wb = bf16_bits(want)
        nan = np.isnan(want)
        if not (np.array_equal(gb[~nan], wb[~nan]) and np.isnan(as_bf16(gb[nan])).all()):
            bad.append("bfloat16 " + name)
print(json.dumps({"capability": tcore.backends.cpu.get_cpu_capability(), "bad": bad}))
"""


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_half_conversions_at_every_capability(tcore, capability):
    """float32 <-> float16 (F16C vectors at AVX2/AVX-512, Half's own code at the baseline) and
    float32 <-> bfloat16 (vector code at every capability, bit for bit as BFloat16's): every half
    value to float, and every half's neighbours, midpoints (ties to even), overflow and subnormals
    to half, bit for bit against numpy, contiguous and strided; also through cast(), which code
    outside the kernels calls (it runs the chosen capability's copy)."""
    out = program_json(HALF_PROGRAM, capability)
    assert out["bad"] == [], out


ROUNDING_PROGRAM = r"""
import json, numpy as np, tcore
rng = np.random.default_rng(1)
bad = []
for dt, lo, hi in ((np.float32, -45, 38), (np.float64, -320, 307)):
    n = 20011
    x = (rng.uniform(1, 10, n) * 10.0 ** rng.integers(lo, hi, n) * rng.choice([-1, 1], n)).astype(dt)
    y = (rng.uniform(1, 10, n) * 10.0 ** rng.integers(lo, hi, n) * rng.choice([-1, 1], n)).astype(dt)
    sp = np.array([0.0, -0.0, 1.0, -1.0, 0.7, -3.5, np.inf, -np.inf, np.nan, 1e-40, -1e30], dt)
    x = np.concatenate([x, np.repeat(sp, len(sp))]); y = np.concatenate([y, np.tile(sp, len(sp))])
    def same(got, want):
        m = np.isnan(want)
        return bool((m == np.isnan(got)).all() and np.array_equal(got[~m], want[~m]) and np.array_equal(np.signbit(got[~m]), np.signbit(want[~m])))
    with np.errstate(all="ignore"):
        mod = np.fmod(x, y)
        rem = np.where((mod != 0) & ((mod < 0) != (y < 0)), mod + y, mod)
        div = (x - mod) / y
        div = np.where((mod != 0) & ((y < 0) != (mod < 0)), div - 1, div)
        fl = np.floor(div)
        fdiv = np.where(div - fl > 0.5, fl + 1, fl)
        fdiv = np.where(div == 0, np.copysign(0.0, x / y), fdiv).astype(dt)
        fdiv = np.where(y == 0, x / y, fdiv)
    tx, ty = tcore.from_numpy(x), tcore.from_numpy(y)
    for name, got, want in (("fmod", tcore.fmod(tx, ty), mod), ("remainder", tcore.remainder(tx, ty), rem),
                            ("floor_div", tcore.div(tx, ty, rounding_mode="floor"), fdiv),
                            ("fmod strided", tcore.fmod(tcore.from_numpy(np.stack([x, x], 1))[:, 0], ty), mod),
                            ("fmod by a number", tcore.fmod(tx, 0.7), np.fmod(x, dt(0.7)))):
        if not same(got.numpy(), want):
            bad.append(f"{np.dtype(dt).name} {name}")
print(json.dumps({"capability": tcore.backends.cpu.get_cpu_capability(), "bad": bad}))
"""


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_fmod_remainder_floor_div_at_every_capability(tcore, capability):
    """fmod is C's fmod, bit for bit, over the whole exponent range (SLEEF's vector fmod, with C's in
    the lanes where SLEEF gives NaN: a quotient past the float range, where torch 2.13 gives NaN);
    remainder and floor division follow from it by PyTorch's formulas; contiguous, strided and by
    a number."""
    out = program_json(ROUNDING_PROGRAM, capability)
    assert out["bad"] == [], out


RANDOM_PROGRAM = r"""
import json, math, numpy as np, tcore
tcore.manual_seed(11)
out = {}
erf = np.vectorize(math.erf)
for name, dt in (("float32", tcore.float32), ("float64", tcore.float64)):
    n = 200_003  # blocks of 2 x lanes and a last partial block
    x = np.sort(tcore.randn(n, dtype=dt).numpy().astype(np.float64))
    u = np.sort(tcore.rand(n, dtype=dt).numpy().astype(np.float64))
    ranks = np.arange(1, n + 1) / n
    ks_normal = float(np.max(np.abs(ranks - 0.5 * (1 + erf(x / math.sqrt(2))))))
    ks_uniform = float(np.max(np.abs(ranks - u)))
    y = tcore.empty(301, 7, dtype=dt).t().normal_(2.0, 3.0).numpy()  # strided: through a contiguous draw
    out[name] = {"ks_normal": ks_normal, "ks_uniform": ks_uniform, "finite": bool(np.isfinite(x).all()),
                 "in_range": bool(u[0] >= 0 and u[-1] < 1), "mean": float(y.mean()), "std": float(y.std()),
                 "small": [len(set(tcore.randn(k, dtype=dt).numpy().tolist())) == k for k in (1, 2, 3, 31, 33)]}
print(json.dumps(out))
"""


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_random_distributions_at_every_capability(tcore, capability):
    """randn (Box-Muller on blocks of uniforms, by vectors) and rand: Kolmogorov-Smirnov distance
    to the normal and uniform distributions below the 0.1% critical value (1.95 / sqrt(n)) for a
    fixed seed, uniforms in [0, 1), a strided normal_ with mean and std, and short tensors."""
    for name, s in program_json(RANDOM_PROGRAM, capability).items():
        critical = 1.95 / math.sqrt(200_003)
        assert s["ks_normal"] < critical and s["ks_uniform"] < critical, (name, s)
        assert s["finite"] and s["in_range"] and all(s["small"]), (name, s)
        assert abs(s["mean"] - 2.0) < 0.15 and abs(s["std"] - 3.0) < 0.15, (name, s)


TRANSPOSE_PROGRAM = r"""
import json, numpy as np, tcore
rng = np.random.default_rng(4)
bad = []
dtypes = {"uint8": np.uint8, "int8": np.int8, "bool": np.bool_, "int16": np.int16, "float16": np.float16,
          "int32": np.int32, "float32": np.float32, "int64": np.int64, "float64": np.float64}
for name, dt in dtypes.items():
    for rows, cols in ((64, 256), (129, 257), (300, 70), (70, 300), (1000, 17), (17, 1000), (3, 5), (513, 1030)):
        a = (rng.integers(0, 2, (rows, cols)) if dt is np.bool_ else rng.integers(-100, 100, (rows, cols))).astype(dt)
        b = (rng.integers(0, 2, (cols, rows)) if dt is np.bool_ else rng.integers(-100, 100, (cols, rows))).astype(dt)
        x, y = tcore.from_numpy(a), tcore.from_numpy(b)
        checks = {
            "t().contiguous()": (x.t().contiguous().numpy(), a.T),  # transposed read, gathered into a buffer
            "copy_ into a transposed out": (None, None),
            "where(mask, x, y.t())": (tcore.where(x == x, x, y.t()).numpy(), a),
        }
        o = tcore.empty((cols, rows), dtype=x.dtype)
        o.t().copy_(x)  # transposed write, scattered from a buffer
        checks["copy_ into a transposed out"] = (o.numpy(), a.T)
        if dt is not np.bool_:
            checks["x - y.t()"] = ((x - y.t()).numpy(), (a - b.T).astype(dt))
        for what, (got, want) in checks.items():
            if not np.array_equal(got, want):
                bad.append(f"{name} {rows}x{cols} {what}")
print(json.dumps({"bad": bad}))
"""


@pytest.mark.parametrize("capability", NAMES)
def test_transposing_loops_of_every_element_size_at_every_capability(tcore, capability):
    """The tiled loops transpose tiles of 1-, 2-, 4- and 8-byte elements through buffers (16 x 16 bytes
    with SSE2; 16 x 16 halves with AVX2): a transposed read, a transposed write and a transposed
    operand of an elementwise kernel, at block-aligned and ragged sizes, against numpy."""
    out = program_json(TRANSPOSE_PROGRAM, capability)
    assert out["bad"] == [], out
