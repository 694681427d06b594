"""conv2d's two CPU paths against torch: oneDNN's kernels (float32 convolutions of about 4M
multiply-adds and more, in a build that found libdnnl-dev) and tcore's patches-by-weight products
(the rest, other dtypes, and every convolution with TCORE_USE_ONEDNN=0). Forward values and the
input, weight and bias gradients, at the shapes each path takes."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (N, C, H, W), out channels, kernel, stride, padding, dilation, groups: each at least 4M
# multiply-adds, so oneDNN takes them when it is there
LARGE = [
    ((8, 32, 48, 48), 32, 3, 1, 1, 1, 1),
    ((4, 16, 33, 35), 24, 5, 2, 2, 1, 1),
    ((2, 16, 61, 59), 16, 3, 3, 0, 2, 1),  # stride 3 leaves input columns unread (negative far padding)
    ((4, 3, 64, 64), 64, 7, 2, 3, 1, 1),
    ((4, 64, 24, 24), 64, 1, 1, 0, 1, 1),
    ((2, 32, 40, 40), 64, 3, 1, 1, 1, 4),  # groups: oneDNN's grouped convolution
    ((8, 64, 32, 32), 64, 3, 1, 1, 1, 64),  # depthwise
    ((4, 32, 41, 40), 64, 3, 2, 1, 1, 32),  # depthwise, two channels out of each, stride 2
    ((1, 32, 64, 64), 32, (3, 5), (1, 2), (1, 2), (2, 1), 1),
]


def _pair(v):
    return v if isinstance(v, tuple) else (v, v)


def _run(lib, x, w, b, g, stride, padding, dilation, groups, layout="plain"):
    F = lib.nn.functional
    xt, wt, bt = (lib.tensor(v, requires_grad=True) for v in (x, w, b))
    xin = xt
    if layout == "permuted":  # the same values, stored channels-last
        xin = xt.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    y = F.conv2d(xin, wt, bt, stride=stride, padding=padding, dilation=dilation, groups=groups)
    y.backward(lib.tensor(g))
    return y.detach().numpy(), xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy()


def _case(shape, out_channels, kernel, groups, seed=0):
    rng = np.random.default_rng(seed)
    kh, kw = _pair(kernel)
    x = rng.standard_normal(shape).astype(np.float32)
    w = (rng.standard_normal((out_channels, shape[1] // groups, kh, kw)) * 0.1).astype(np.float32)
    b = rng.standard_normal(out_channels).astype(np.float32)
    return x, w, b


def _close(got, want, what):
    scale = max(float(np.abs(want).max()), 1e-30)
    assert got.shape == want.shape, what
    assert float(np.abs(got - want).max()) <= 2e-5 * scale, what


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", LARGE, ids=lambda c: "x".join(map(str, c[0])) + f"-k{c[2]}s{c[3]}p{c[4]}d{c[5]}g{c[6]}")
def test_large_float32_convolutions_match_torch(tcore, case, threads):
    shape, out_channels, kernel, stride, padding, dilation, groups = case
    x, w, b = _case(shape, out_channels, kernel, groups)
    old = tcore.get_num_threads()
    tcore.set_num_threads(threads)
    try:
        y = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), stride=stride, padding=padding,
                                       dilation=dilation, groups=groups)
        g = np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(np.float32)
        want = _run(torch, x, w, b, g, stride, padding, dilation, groups)
        for layout in ("plain", "permuted"):
            got = _run(tcore, x, w, b, g, stride, padding, dilation, groups, layout)
            for name, a, e in zip(("y", "dx", "dw", "db"), got, want):
                _close(a, e, f"{name} ({layout})")
    finally:
        tcore.set_num_threads(old)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_other_dtypes_take_tcores_products(tcore, dtype):
    shape, out_channels, kernel, stride, padding, dilation, groups = LARGE[1]
    x, w, b = _case(shape, out_channels, kernel, groups)
    tt, ct = getattr(torch, dtype), getattr(tcore, dtype)
    want = torch.nn.functional.conv2d(torch.tensor(x, dtype=tt), torch.tensor(w, dtype=tt), stride=stride,
                                      padding=padding, dilation=dilation).float().numpy()
    got = tcore.nn.functional.conv2d(tcore.tensor(x).to(ct), tcore.tensor(w).to(ct), stride=stride, padding=padding,
                                     dilation=dilation).float().numpy()
    tol = 2e-5 if dtype == "float64" else 2e-2
    assert float(np.abs(got - want).max()) <= tol * float(np.abs(want).max())


def test_second_derivatives_through_a_large_convolution(tcore):
    shape, out_channels, kernel, stride, padding, dilation, groups = LARGE[0]
    x, w, _ = _case(shape, out_channels, kernel, groups)
    grads = []
    for lib in (torch, tcore):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.conv2d(xt, wt, padding=1)
        (gx,) = lib.autograd.grad((y * y).sum(), [xt], create_graph=True)
        (gw,) = lib.autograd.grad((gx * gx).sum(), [wt])
        grads.append(gw.numpy())
    _close(grads[1], grads[0], "d/dw |d/dx sum(y^2)|^2")


def test_both_paths_agree_and_the_switch_is_reported(tcore):
    """The same large convolution in a process with TCORE_USE_ONEDNN=0: tcore's products, within
    float32 rounding of oneDNN's (or the same path, in a build without oneDNN)."""
    shape, out_channels, kernel, stride, padding, dilation, groups = LARGE[1]
    x, w, b = _case(shape, out_channels, kernel, groups)
    g = np.ones((shape[0], out_channels, 17, 18), np.float32)
    here = _run(tcore, x, w, b, g, stride, padding, dilation, groups)
    code = textwrap.dedent(f"""
        import sys, numpy as np, tcore
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_conv2d_backends import _case, _run, LARGE
        shape, o, k, s, p, d, gr = LARGE[1]
        x, w, b = _case(shape, o, k, gr)
        out = _run(tcore, x, w, b, np.ones((shape[0], o, 17, 18), np.float32), s, p, d, gr)
        np.savez(sys.argv[1], *out, path=tcore.backends.cpu.convolution())
    """)
    out_file = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"conv_paths_{os.getpid()}.npz")
    env = {**os.environ, "TCORE_USE_ONEDNN": "0"}
    subprocess.run([sys.executable, "-c", code, out_file], check=True, env=env)
    try:
        there = np.load(out_file)
        assert str(there["path"]) == "tcore"
        for i, name in enumerate(("y", "dx", "dw", "db")):
            _close(there[f"arr_{i}"], here[i], name)
    finally:
        os.remove(out_file)
    assert tcore.backends.cpu.convolution() in ("onednn", "tcore")


@pytest.mark.parametrize("onednn", ["1", "0"])
def test_grouped_convolutions_keep_layouts_and_differentiate_twice(tcore, onednn):
    """Grouped and depthwise convolutions, oneDNN's native groups or tcore's products group by group
    (TCORE_USE_ONEDNN=0, in a child process): channels_last inputs give channels_last results and
    gradients, as torch's; second derivatives (create_graph) and values as torch's."""
    code = textwrap.dedent('''
        import json, numpy as np, tcore, torch
        out = {"bad": []}
        for shape, oc, groups in (((4, 32, 24, 24), 64, 4), ((8, 64, 32, 32), 64, 64), ((2, 8, 9, 9), 16, 8)):
            rng = np.random.default_rng(groups)
            x = rng.standard_normal(shape).astype(np.float32)
            w = (rng.standard_normal((oc, shape[1] // groups, 3, 3)) * 0.1).astype(np.float32)
            res = {}
            for lib in (torch, tcore):
                xt = lib.tensor(x).to(memory_format=lib.channels_last).requires_grad_(True)
                wt = lib.tensor(w, requires_grad=True)
                y = lib.nn.functional.conv2d(xt, wt, padding=1, groups=groups)
                gx, gw = lib.autograd.grad((y * y).sum(), [xt, wt], create_graph=True)
                (ggw,) = lib.autograd.grad((gx * gx).sum(), [wt])
                res[lib.__name__] = dict(y=y, gx=gx, gw=gw, ggw=ggw)
            for k in ("y", "gx", "gw", "ggw"):
                a, e = res["tcore"][k], res["torch"][k]
                if k in ("y", "gx") and a.stride() != e.stride():
                    out["bad"].append(f"{shape} g{groups} {k} strides {a.stride()} != {e.stride()}")
                a, e = a.detach().numpy(), e.detach().numpy()
                if float(np.abs(a - e).max()) > 3e-5 * max(float(np.abs(e).max()), 1e-30):
                    out["bad"].append(f"{shape} g{groups} {k} values")
        print(json.dumps(out))
    ''')
    env = {**os.environ, "TCORE_USE_ONEDNN": onednn}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["bad"] == []
