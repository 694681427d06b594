#!/usr/bin/env python3
"""What of tcore's API runs on a CUDA device, and whether it agrees with the CPU: each call of a
table (creation, elementwise, reductions, shapes and views, indexing, nn, autograd and an MLP
training step) runs on CPU tensors and on the same tensors moved to "cuda"; prints, per call,
'ok', 'MISMATCH' (the largest difference), or the error raised on the device (an operator
without a CUDA kernel says so), and writes build/bench/cuda_probe.json. Needs a GPU; a survey,
not a test: tests/test_cuda.py holds what must pass."""
from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def calls(tc):
    """name -> f(device) returning a tensor or a tuple of tensors, computed on that device."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 5)).astype(np.float32)
    B = rng.standard_normal((5, 4)).astype(np.float32)
    V = rng.standard_normal(5).astype(np.float32)
    P = (np.abs(A) + 0.5).astype(np.float32)
    I = rng.integers(0, 5, (6, 3))
    IMG = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    KER = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)

    def t(a, dev, requires_grad=False):
        x = tc.tensor(a).to(dev)
        return x.requires_grad_() if requires_grad else x

    F = tc.nn.functional
    table = {
        "zeros/ones/full": lambda d: (tc.zeros(3, 4, device=d), tc.ones(2, device=d), tc.full([2, 2], 7.0, device=d)),
        "arange/linspace/eye": lambda d: (tc.arange(10, device=d), tc.linspace(0, 1, 7, device=d), tc.eye(3, device=d)),
        "empty_like+fill_": lambda d: tc.empty_like(t(A, d)).fill_(2.5),
        "zeros_like/ones_like": lambda d: (tc.zeros_like(t(A, d)), tc.ones_like(t(A, d))),
        "add/sub/mul/div": lambda d: (t(A, d) + t(V, d), t(A, d) - 1, t(A, d) * t(V, d), t(A, d) / t(P, d)),
        "pow/remainder/fmod": lambda d: (t(P, d) ** 1.5, tc.remainder(t(A, d), 0.7), tc.fmod(t(A, d), 0.7)),
        "maximum/minimum/where": lambda d: (tc.maximum(t(A, d), t(V, d)), tc.where(t(A, d) > 0, t(A, d), t(P, d))),
        "clamp": lambda d: t(A, d).clamp(-0.5, 0.5),
        "exp/log/sqrt/tanh/sigmoid": lambda d: (t(A, d).exp(), t(P, d).log(), t(P, d).sqrt(), t(A, d).tanh(), t(A, d).sigmoid()),
        "sin/cos/abs/neg/sign": lambda d: (t(A, d).sin(), t(A, d).cos(), t(A, d).abs(), -t(A, d), t(A, d).sign()),
        "floor/ceil/round/trunc": lambda d: (t(A, d).floor(), t(A, d).ceil(), t(A, d).round(), t(A, d).trunc()),
        "erf/log1p/expm1/rsqrt": lambda d: (t(A, d).erf(), t(P, d).log1p(), t(A, d).expm1(), t(P, d).rsqrt()),
        "comparisons": lambda d: (t(A, d) == t(V, d), t(A, d) < 0, t(A, d) >= t(V, d)),
        "logical/bitwise": lambda d: (tc.logical_and(t(A, d) > 0, t(A, d) < 1), t(I, d) & 3, ~(t(I, d) > 2)),
        "isnan/isinf": lambda d: (tc.isnan(t(A, d) / 0 * 0), tc.isinf(t(A, d) / 0)),
        "to(dtype)": lambda d: (t(A, d).to(tc.float64), t(A, d).to(tc.int32), t(A, d).to(tc.float16), t(A, d).to(tc.bfloat16)),
        "float16 add": lambda d: t(A, d).half() + t(V, d).half(),
        "sum/mean": lambda d: (t(A, d).sum(), t(A, d).sum(0), t(A, d).mean(1, keepdim=True)),
        "prod/amax/amin": lambda d: (t(A, d).prod(1), t(A, d).amax(0), t(A, d).amin(1)),
        "max/min (dim)": lambda d: tuple(t(A, d).max(1)) + tuple(t(A, d).min(0)),
        "argmax/argmin": lambda d: (t(A, d).argmax(1), t(A, d).argmin()),
        "var/std/norm": lambda d: (t(A, d).var(1), t(A, d).std(), t(A, d).norm()),
        "all/any": lambda d: ((t(A, d) > -10).all(), (t(A, d) > 1).any(1)),
        "logsumexp/softmax/log_softmax": lambda d: (t(A, d).logsumexp(1), t(A, d).softmax(1), t(A, d).log_softmax(0)),
        "cumsum/cumprod": lambda d: (t(A, d).cumsum(1), t(A, d).cumprod(0)),
        "sort/topk": lambda d: tuple(t(A, d).sort(1)) + tuple(t(A, d).topk(2)),
        "mm/matmul/bmm": lambda d: (t(A, d) @ t(B, d), tc.matmul(t(A, d), t(V, d)), tc.bmm(t(A, d)[None], t(B, d)[None])),
        "addmm/mv/dot/outer": lambda d: (tc.addmm(t(B, d)[0], t(A, d), t(B, d)), tc.mv(t(A, d), t(V, d)), tc.dot(t(V, d), t(V, d)), tc.outer(t(V, d), t(V, d))),
        "views": lambda d: (t(A, d).t(), t(A, d).view(30), t(A, d)[1:4, ::2], t(A, d).permute(1, 0)[2], t(A, d).diagonal(), t(A, d).unsqueeze(0).expand(2, 6, 5)),
        "contiguous of a view": lambda d: t(A, d).t().contiguous(),
        "reshape/flatten/squeeze": lambda d: (t(A, d).reshape(3, 10), t(A, d)[None].flatten(), t(A, d)[None].squeeze(0)),
        "cat/stack/split/chunk": lambda d: (tc.cat([t(A, d), t(A, d)]), tc.stack([t(V, d), t(V, d)])) + tuple(t(A, d).split(2)) + tuple(t(A, d).chunk(2, 1)),
        "index with int tensor": lambda d: t(A, d)[t(I[:, 0], d)],
        "index with bool mask": lambda d: t(A, d)[t(A, d) > 0],
        "setitem slice/scalar": lambda d: _setitem(t(A, d)),
        "gather/scatter_add/index_select": lambda d: (t(A, d).gather(1, t(I, d)), tc.zeros(6, 5, device=d).scatter_add(1, t(I, d), t(A, d)[:, :3]), t(A, d).index_select(0, t(I[:, 0], d))),
        "masked_fill/tril/triu": lambda d: (t(A, d).masked_fill(t(A, d) > 0, 0.0), t(A, d).tril(), t(A, d).triu(1)),
        "flip/roll/repeat": lambda d: (t(A, d).flip(0), t(A, d).roll(1, 1), t(V, d).repeat(2)),
        "relu/gelu/silu": lambda d: (F.relu(t(A, d)), F.gelu(t(A, d)), F.silu(t(A, d))),
        "linear": lambda d: F.linear(t(A, d), t(B.T.copy(), d), t(B[0], d)),
        "layer_norm": lambda d: F.layer_norm(t(A, d), [5]),
        "dropout (eval)": lambda d: F.dropout(t(A, d), 0.5, training=False),
        "conv2d": lambda d: F.conv2d(t(IMG, d), t(KER, d), padding=1),
        "max_pool2d/avg_pool2d": lambda d: (F.max_pool2d(t(IMG, d), 2), F.avg_pool2d(t(IMG, d), 2)),
        "cross_entropy/nll/mse": lambda d: (F.cross_entropy(t(A, d), t(I[:, 0], d)), F.mse_loss(t(A, d), t(P, d))),
        "embedding": lambda d: F.embedding(t(I, d), t(A, d)),
        "autograd: (x@w).relu().sum()": lambda d: _grad(tc, lambda x: (x @ t(B, d)).relu().sum(), t(A, d, requires_grad=True)),
        "autograd: softmax+log": lambda d: _grad(tc, lambda x: x.softmax(1).log().sum(), t(A, d, requires_grad=True)),
        "autograd: in-place on a view": lambda d: _grad(tc, _inplace_view, t(A, d, requires_grad=True)),
        "MLP step (Linear, relu, cross_entropy, SGD)": lambda d: _mlp_step(tc, d),
    }
    return table


def _setitem(x):
    x[1:3] = 0.5
    x[0, 0] = 7.0
    return x


def _inplace_view(x):
    y = x * 1
    y[1:3].mul_(3)
    return y.sum()


def _grad(tc, f, x):
    f(x).backward()
    return x.grad


def _mlp_step(tc, device):
    tc.manual_seed(0)
    model = tc.nn.Sequential(tc.nn.Linear(20, 32), tc.nn.ReLU(), tc.nn.Linear(32, 5)).to(device)
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(1)
    x = tc.tensor(rng.standard_normal((16, 20)).astype(np.float32)).to(device)
    y = tc.tensor(rng.integers(0, 5, 16)).to(device)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = tc.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach().reshape([1]))
    return tc.cat(losses)


def as_list(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def compare(tc, cpu, dev) -> tuple[str, str]:
    cpu, dev = as_list(cpu), as_list(dev)
    if len(cpu) != len(dev):
        return "MISMATCH", f"{len(cpu)} results on the CPU, {len(dev)} on the device"
    worst = 0.0
    for i, (a, b) in enumerate(zip(cpu, dev)):
        if str(b.device).split(":")[0] != "cuda":
            return "MISMATCH", f"result {i} is on {b.device}"
        if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape):
            return "MISMATCH", f"result {i}: {a.dtype}{tuple(a.shape)} on the CPU, {b.dtype}{tuple(b.shape)} on the device"
        x, y = (t.detach().cpu().to(tc.float64).numpy() for t in (a, b))  # numpy has no bfloat16
        if not np.array_equal(np.isnan(x), np.isnan(y)):
            return "MISMATCH", f"result {i}: NaNs differ"
        finite = np.isfinite(x) & np.isfinite(y)
        if not np.array_equal(x[~finite & ~np.isnan(x)], y[~finite & ~np.isnan(y)]):
            return "MISMATCH", f"result {i}: infinities differ"
        if finite.any():
            worst = max(worst, float(np.max(np.abs(x[finite] - y[finite]) / (1 + np.abs(x[finite])))))
    tol = 1e-2 if any(a.dtype in ("float16", "bfloat16") or str(a.dtype).endswith(("float16", "bfloat16")) for a in cpu) else 1e-4
    return ("ok" if worst <= tol else "MISMATCH"), f"max rel diff {worst:.2e}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", default=str(ROOT / "build" / "bench" / "cuda_probe.json"))
    args = parser.parse_args()
    import tcore as tc

    if not tc.cuda.is_available():
        print(f"no usable CUDA device: {tc.cuda.unavailable_reason() or 'built without CUDA'}", file=sys.stderr)
        return 2
    results = {}
    for name, f in calls(tc).items():
        print(f"... {name}", flush=True)  # the last line names the call if the process dies
        try:
            cpu = f("cpu")
        except Exception as e:
            results[name] = ("CPU ERROR", f"{type(e).__name__}: {e}".splitlines()[0][:300])
            continue
        try:
            dev = f("cuda")
            tc.cuda.synchronize()
            results[name] = compare(tc, cpu, dev)
        except Exception as e:
            results[name] = ("error", f"{type(e).__name__}: {e}".splitlines()[0][:300])
            if not isinstance(e, (RuntimeError, NotImplementedError, TypeError, ValueError)):
                traceback.print_exc()
    width = max(map(len, results))
    for name, (status, detail) in results.items():
        print(f"{name:<{width}}  {status:<9} {detail}")
    counts = {s: sum(1 for v in results.values() if v[0] == s) for s in ("ok", "MISMATCH", "error", "CPU ERROR")}
    print("summary:", ", ".join(f"{k} {v}" for k, v in counts.items()))
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"results": results, "counts": counts}, indent=2))
    return 1 if counts["MISMATCH"] else 0


if __name__ == "__main__":
    sys.exit(main())
