"""A differential fuzzer of autograd through views and in-place operations: tcore against torch.

Each program is Python source over a module `T` (torch or tcore: the same methods), built at
random and checked statement by statement against torch while it is generated, so that most
programs are valid (a few end on a statement torch rejects, to check that tcore rejects it
too). Programs mix leaves (requiring grad or not), non-leaf bases, chains of views (slices with
steps, select, narrow, transpose/permute/t, view/reshape, unsqueeze/squeeze, expand, diagonal,
unfold, split/chunk/unbind outputs, as_strided, basic indexing, view_as, movedim,
flatten/unflatten), in-place operations on views or bases (arithmetic, copy_ with broadcasting,
fill_, clamp_, masked_fill_, index_*_, scatter_*, put_, addcmul_, unary in-place ops, setitem
with basic/advanced/bool indices, writes through overlapping views), detach/detach_,
requires_grad_, no_grad blocks, retain_grad, and reads of bases after writes to views.

The helpers a program calls (the only non-library names):
    LEAF(data, requires_grad, tangent)  a float64 leaf (in forward mode: a dual tensor when
                                        requires_grad, with that tangent)
    OUT(x)      x is an output: its value now (snapshot) and at the end enter the comparison,
                and (x * W).sum() enters the loss at the end
    ACC(y)      (y * W).sum() enters the loss now (a node of the graph at this point)
    RETAIN(x)   x.retain_grad(), and x.grad is compared after backward

Each program runs in both libraries, with the same float64 inputs, twice:
  * backward mode: forward values and errors, torch.autograd.grad of the loss w.r.t. every
    leaf requiring grad (allow_unused), then loss.backward() and .grad of the leaves and the
    retain_grad'ed tensors; on a subset, double backward (create_graph=True, then the grad of
    a weighted sum of the grads);
  * forward mode (autograd.forward_ad): values and tangents of the outputs and the loss,
    unless torch does not support forward AD for the program.
Errors must match (torch raises <=> tcore raises, at the same statement); exception types are
compared loosely (kept as notes). Divergences are classified: wrong value, wrong gradient,
wrong tangent, wrong requires_grad, missing error, spurious error, crash (the worker process
died) or hang.

Finite differences (torch without autograd, the leaves moved along their tangents) referee
the derivatives: a divergence where torch is wrong and tcore right is dropped (a note says so:
torch's forward AD is wrong for in-place ops whose operand is self, x.addcmul_(x, y)); where
torch raises (a saved tensor modified in-place...) and tcore runs, tcore's derivatives are
checked, and wrong ones are a divergence; `--modes bwd,fwd,fd` also checks the programs on which
both libraries agree. Writes whose operand partially overlaps the written tensor, or through a
view whose elements overlap, are kept only where torch rejects them (their result is otherwise
unspecified), marked `# partial overlap`.

Programs run in a worker process (`python diff_autograd_fuzz.py --worker`), restarted after a
crash. Every divergence is minimized (statements dropped while the same divergence remains)
and rendered as a self-contained script.

    python tests/fuzz/diff_autograd_fuzz.py --programs 2000 --seed 1
    python tests/fuzz/diff_autograd_fuzz.py --programs 2000 --seed 1 --avoid detach_,fill_tensor
                            (leave out ops with a known divergence, to look for others)
    python tests/fuzz/diff_autograd_fuzz.py --show 1:17        # the source of program 17, seed 1
DIFF_FUZZ_TCORE=DIR runs the worker on the tcore package in DIR (a copy, while the tree is being
rebuilt). Used by tests/fuzz/test_diff_autograd_fuzz.py (a short fixed-seed run).
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import math
import os
import random
import re
import select
import subprocess
import sys
import time
import traceback
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# ============================================================================ running a program


def weights(T, o, k):
    """The loss weights of the k-th term (deterministic, the same in both libraries)."""
    n = o.numel()
    return T.tensor([math.cos(1.3 * i + 0.7 * k + 0.1) for i in range(n)], dtype=T.float64).reshape(tuple(o.shape))


def _np(t):
    return t.detach().clone().numpy()


class Run:
    """One program in one library (T) and one mode ("bwd" or "fwd"), statement by statement."""

    def __init__(self, T, mode: str = "bwd", double: bool = False, eps: float = 0.0):
        """mode "fd": no autograd at all, the leaves with a tangent moved by eps * tangent (the
        finite-difference referee)."""
        self.T, self.mode, self.double, self.eps = T, mode, double, eps
        self.outs, self.snaps, self.accs, self.retained = [], [], [], []
        self.leaves = []  # (tensor, tangent data) of the LEAF calls with a tangent
        self.error = None  # (stage, statement index, exception type, message)
        self.n = 0
        self.ns = {"T": T, "LEAF": self.LEAF, "OUT": self.OUT, "ACC": self.ACC, "RETAIN": self.RETAIN}
        self.fw = None
        if mode == "fwd":
            import importlib
            self.fw = importlib.import_module(T.__name__ + ".autograd.forward_ad")
            self.level = self.fw.enter_dual_level()

    # -- the helpers programs call
    def LEAF(self, data, requires_grad=False, tangent=None):
        T = self.T
        if self.mode == "fd":
            x = T.tensor(data, dtype=T.float64)
            return x + self.eps * T.tensor(tangent, dtype=T.float64) if requires_grad and tangent is not None else x
        if self.mode == "fwd":
            x = T.tensor(data, dtype=T.float64)
            if requires_grad and tangent is not None:
                return self.fw.make_dual(x, T.tensor(tangent, dtype=T.float64))
            return x
        x = T.tensor(data, dtype=T.float64, requires_grad=requires_grad)
        if requires_grad and tangent is not None:
            self.leaves.append((x, tangent))
        return x

    def _value(self, x):
        if self.mode == "fwd":
            p, t = self.fw.unpack_dual(x)
            return _np(p), (None if t is None else _np(t))
        return _np(x), None

    def OUT(self, x):
        v, t = self._value(x)
        self.snaps.append((tuple(x.shape), bool(x.requires_grad), v, t))
        self.outs.append(x)

    def ACC(self, y):
        term = (y * weights(self.T, y, 50 + len(self.accs))).sum()
        self.accs.append(term)
        v, t = self._value(term)
        self.snaps.append(("acc", bool(term.requires_grad), v, t))

    def RETAIN(self, x):
        if self.mode == "bwd":
            x.retain_grad()
            self.retained.append(x)

    # -- execution
    def exec(self, src: str) -> bool:
        """Runs one statement; False (and self.error) if it raised."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(src, self.ns)
        except Exception as e:  # noqa: BLE001 - any exception is data here
            self.error = ("stmt", self.n, type(e).__name__, _msg(e))
            return False
        finally:
            self.n += 1
        return True

    def _stage(self, stage, fn):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return True, fn()
        except Exception as e:  # noqa: BLE001
            self.error = (stage, self.n, type(e).__name__, _msg(e))
            return False, None

    def finish(self) -> dict:
        try:
            return self._finish()
        finally:
            if self.fw is not None:
                try:
                    self.fw.exit_dual_level(level=self.level)
                except Exception:  # noqa: BLE001
                    pass

    def _targets(self):
        """The leaves requiring grad, by name (every name bound to one, first name wins)."""
        T, seen, names = self.T, set(), []
        for name in sorted(self.ns, key=_name_key):
            v = self.ns[name]
            try:
                if isinstance(v, T.Tensor) and v.requires_grad and v.is_leaf and id(v) not in seen:
                    seen.add(id(v))
                    names.append(name)
            except Exception:  # noqa: BLE001 - (a view torch no longer lets anyone use: not a leaf)
                pass
        return names

    def _finish(self) -> dict:
        T = self.T
        res = {"error": self.error, "snaps": self.snaps, "ran": self.n}
        if self.error is not None:
            return res
        ok, loss = self._stage("loss", lambda: sum(
            [(o * weights(T, o, k)).sum() for k, o in enumerate(self.outs)] + self.accs, T.zeros((), dtype=T.float64)))
        if not ok:
            res["error"] = self.error
            return res
        ok, finals = self._stage("final values", lambda: [self._value(o) for o in self.outs] + [self._value(loss)])
        if not ok:
            res["error"] = self.error
            return res
        res["finals"] = finals
        res["loss_rg"] = bool(loss.requires_grad)
        if self.mode in ("fwd", "fd") or not loss.requires_grad:
            return res
        names = self._targets()
        res["targets"] = names
        if not names:
            return res
        leaves = [self.ns[n] for n in names]
        ok, g = self._stage("autograd.grad", lambda: T.autograd.grad(loss, leaves, retain_graph=True, allow_unused=True))
        if not ok:
            res["error"] = self.error
            return res
        res["grads"] = [None if x is None else _np(x) for x in g]
        # the gradient along the tangents of the leaves (for the finite-difference referee),
        # when the leaves requiring grad are exactly those LEAF made with a tangent
        import numpy as np
        tan = {id(x): np.asarray(t, dtype=np.float64) for x, t in self.leaves}
        if {id(x) for x in leaves} == set(tan) and all(
                gi is None or gi.shape == tan[id(x)].shape for x, gi in zip(leaves, res["grads"])):
            res["dirderiv"] = float(sum(float((gi * tan[id(x)]).sum()) for x, gi in zip(leaves, res["grads"])
                                        if gi is not None))
        if self.double:
            def double():
                g2 = T.autograd.grad(loss, leaves, retain_graph=True, create_graph=True, allow_unused=True)
                terms = [(gi * weights(T, gi, 100 + i)).sum() for i, gi in enumerate(g2)
                         if gi is not None and gi.requires_grad]
                if not terms:
                    return [None] * len(leaves)
                s = sum(terms[1:], terms[0])
                if not s.requires_grad:
                    return [None] * len(leaves)
                return [None if x is None else _np(x)
                        for x in T.autograd.grad(s, leaves, retain_graph=True, allow_unused=True)]
            ok, gg = self._stage("double backward", double)
            if not ok:
                res["error"] = self.error
                return res
            res["gg"] = gg
        ok, _ = self._stage("backward", lambda: loss.backward())
        if not ok:
            res["error"] = self.error
            return res
        res["dot_grads"] = [None if x.grad is None else _np(x.grad) for x in leaves]
        res["retained"] = [None if x.grad is None else _np(x.grad) for x in self.retained]
        return res


def _name_key(name):
    return (name[:1], int(name[1:]) if name[1:].isdigit() else -1, name)


def _msg(e) -> str:
    s = str(e).strip().splitlines()
    return (s[0] if s else "")[:300]


def run_program(T, stmts: list[str], mode: str, double: bool, eps: float = 0.0) -> dict:
    r = Run(T, mode, double, eps)
    for s in stmts:
        if not r.exec(s):
            break
    return r.finish()


# ============================================================================ comparing


ATOL, RTOL = 1e-8, 1e-7


def _close(a, b) -> bool:
    import numpy as np
    if a is None and b is None:
        return True
    if a is None or b is None:  # None (unused / no tangent) counts as zeros
        x = b if a is None else a
        return bool(np.all(x == 0))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True))


def _fmt(a) -> str:
    import numpy as np
    if a is None:
        return "None"
    with np.printoptions(precision=6, suppress=True, threshold=40):
        return " ".join(repr(np.asarray(a)).split())


UNSUPPORTED_FW = ("forward AD", "forward-mode", "forward mode", "forward grad", "not implemented", "NotImplemented",
                  "is not supported", "does not support")


TORCH_BUGS = ("returned an invalid gradient",)


def compare(stmts, rt: dict, rc: dict, mode: str) -> tuple[list, list]:
    """(divergences, notes) between torch's result rt and tcore's rc: divergences are
    (class, where, detail)."""
    divs, notes = [], []
    et, ec = rt["error"], rc["error"]
    if mode == "fwd" and et is not None and (et[2] == "NotImplementedError" or any(s in et[3] for s in UNSUPPORTED_FW)):
        return [], [f"fwd: torch does not support it ({et[3][:80]})"]
    if et is not None and any(s in et[3] for s in TORCH_BUGS):
        return [], [f"{mode}: torch's internal error ({et[3][:80]})"]

    def where(e):
        if e[0] == "stmt":
            return f"statement {e[1]}: {stmts[e[1]].strip().splitlines()[-1].strip()}" if e[1] < len(stmts) else "?"
        return e[0]

    def order(e):
        stages = ["stmt", "loss", "final values", "autograd.grad", "double backward", "backward"]
        return (e[1], stages.index(e[0])) if e is not None else (10**9, 99)

    if et is not None or ec is not None:
        if et is not None and ec is not None and et[:2] == ec[:2]:
            if et[2] != ec[2]:
                notes.append(f"{mode}: exception type at {where(et)}: torch {et[2]}, tcore {ec[2]} ({ec[3][:120]})")
        elif order(et) < order(ec):
            divs.append(("missing error", f"{mode}: {where(et)}",
                         f"torch raises {et[2]}: {et[3]}\ntcore: " + ("no error" if ec is None else
                                                                      f"raises later, at {where(ec)}: {ec[2]}: {ec[3]}")))
        else:
            divs.append(("crash" if ec[2] in ("SystemError",) else "spurious error", f"{mode}: {where(ec)}",
                         f"tcore raises {ec[2]}: {ec[3]}\ntorch: " + ("no error" if et is None else
                                                                      f"raises later, at {where(et)}: {et[2]}: {et[3]}")))
    # snapshots: the values (and tangents) at OUT/ACC time, up to the first error
    for i, (st, sc) in enumerate(zip(rt["snaps"], rc["snaps"])):
        label = "ACC" if st[0] == "acc" else "OUT"
        if st[0] != sc[0]:
            divs.append(("wrong value", f"{mode}: {label} #{i}", f"shape: torch {st[0]}, tcore {sc[0]}"))
            continue
        if not _close(st[2], sc[2]):
            divs.append(("wrong value", f"{mode}: {label} #{i} (value when recorded)",
                         f"torch {_fmt(st[2])}\ntcore {_fmt(sc[2])}"))
        if mode == "bwd" and st[1] != sc[1]:
            divs.append(("wrong requires_grad", f"{mode}: {label} #{i}", f"torch {st[1]}, tcore {sc[1]}"))
        if mode == "fwd" and not _close(st[3], sc[3]):
            divs.append(("wrong tangent", f"{mode}: {label} #{i} (tangent when recorded)",
                         f"torch {_fmt(st[3])}\ntcore {_fmt(sc[3])}", ("snaps", i, 3)))
    if et is not None or ec is not None:
        return divs, notes
    for i, (ft, fc) in enumerate(zip(rt["finals"], rc["finals"])):
        label = "loss" if i == len(rt["finals"]) - 1 else f"OUT #{i} at the end"
        if not _close(ft[0], fc[0]):
            divs.append(("wrong value", f"{mode}: {label}", f"torch {_fmt(ft[0])}\ntcore {_fmt(fc[0])}"))
        if mode == "fwd" and not _close(ft[1], fc[1]):
            divs.append(("wrong tangent", f"{mode}: {label}", f"torch {_fmt(ft[1])}\ntcore {_fmt(fc[1])}",
                         ("finals", i, 1)))
    if rt["loss_rg"] != rc["loss_rg"]:
        divs.append(("wrong requires_grad", f"{mode}: loss", f"torch {rt['loss_rg']}, tcore {rc['loss_rg']}"))
    if mode == "fwd" or not rt["loss_rg"] or not rc["loss_rg"]:
        return divs, notes
    if rt.get("targets") != rc.get("targets"):
        divs.append(("wrong requires_grad", f"{mode}: leaves requiring grad",
                     f"torch {rt['targets']}, tcore {rc['targets']}"))
        return divs, notes
    for key, what in (("grads", "autograd.grad"), ("gg", "double backward"), ("dot_grads", ".grad")):
        if key not in rt or key not in rc:
            continue
        for name, a, b in zip(rt["targets"], rt[key], rc[key]):
            if not _close(a, b):
                divs.append(("wrong gradient", f"{mode}: {what} of {name}", f"torch {_fmt(a)}\ntcore {_fmt(b)}",
                             ("dirderiv",) if key == "grads" else None))
    for i, (a, b) in enumerate(zip(rt.get("retained", ()), rc.get("retained", ()))):
        if not _close(a, b):
            divs.append(("wrong gradient", f"{mode}: .grad of RETAIN #{i}", f"torch {_fmt(a)}\ntcore {_fmt(b)}"))
    return divs, notes


FD_EPS = 1e-6


def _fd_close(fd, x) -> bool:
    import numpy as np
    fd = np.asarray(fd, dtype=np.float64)
    x = np.zeros_like(fd) if x is None else np.asarray(x, dtype=np.float64)
    if fd.shape != x.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(fd), initial=0.0)))
    return bool(np.allclose(x, fd, rtol=1e-4, atol=1e-5 * scale))


def referee(torch, stmts):
    """Finite differences along the tangents, computed by torch without autograd: the
    derivatives of the snapshots, of the final values and of the loss; None when the program
    does not run that way."""
    plus = run_program(torch, stmts, "fd", False, FD_EPS)
    minus = run_program(torch, stmts, "fd", False, -FD_EPS)
    if plus["error"] is not None or minus["error"] is not None:
        return None
    if [s[0] for s in plus["snaps"]] != [s[0] for s in minus["snaps"]]:
        return None
    d = lambda a, b: (a - b) / (2 * FD_EPS)  # noqa: E731
    return {"snaps": [d(a[2], b[2]) for a, b in zip(plus["snaps"], minus["snaps"])],
            "finals": [d(a[0], b[0]) for a, b in zip(plus["finals"], minus["finals"])]}


def judge(torch, stmts, divs, rt, rc, mode, notes):
    """Finite differences settle tangent and gradient divergences: one where torch is wrong
    and tcore right is dropped (a note says so); one where tcore is wrong says so. A program
    torch rejects (a saved tensor modified in-place...) while tcore computes gradients gets its
    gradients checked: wrong ones are a divergence of their own."""
    # (finite differences see through detach() and no_grad, autograd does not; a detached
    # tensor nothing uses afterwards does not matter)
    def matters(i, x):
        m = re.match(r"(\w+) = .*\.detach\(\)$", x)
        return not m or any(re.search(rf"\b{m.group(1)}\b", y) for y in stmts[i + 1:])
    valid = not any(("detach" in x and matters(i, x)) or "no_grad" in x or
                    (mode == "bwd" and "requires_grad_(False)" in x) for i, x in enumerate(stmts))
    missing = rt["error"] is not None and rc["error"] is None and (mode == "fwd" or "dirderiv" in rc)
    need = [d for d in divs if len(d) > 3 and d[3]] or missing
    if not need or not valid:
        return [d[:3] for d in divs]
    e = rt["error"]
    fd = referee(torch, stmts[:e[1]] if e is not None and e[0] == "stmt" and not missing else stmts)
    out = []
    for d in divs:
        ref = d[3] if len(d) > 3 else None
        if fd is None or not ref:
            out.append(d[:3])
            continue
        if ref[0] == "dirderiv" or ref[1] >= len(fd[ref[0]]):
            if ref[0] != "dirderiv":
                out.append(d[:3])
                continue
            want = fd["finals"][-1]
            a, b = rt.get("dirderiv"), rc.get("dirderiv")
        else:
            key, i, j = ref
            want = fd[key][i]
            a, b = rt[key][i][j], rc[key][i][j]
        if a is None and b is None and ref[0] == "dirderiv":
            out.append(d[:3])
            continue
        ok_t, ok_c = _fd_close(want, a), _fd_close(want, b)
        if ok_c and not ok_t:
            notes.append(f"{mode}: torch is wrong, finite differences agree with tcore ({d[0]})")
            continue
        verdict = ("finite differences agree with torch" if ok_t and not ok_c else
                   "finite differences agree with neither" if not ok_t and not ok_c else "")
        out.append((d[0], d[1], d[2] + (f"\n({verdict}: {_fmt(want)})" if verdict else "")))
    if missing and fd is not None:
        # torch rejects the program, tcore runs it: are tcore's derivatives right at least?
        if mode == "bwd":
            bad = [] if _fd_close(fd["finals"][-1], rc["dirderiv"]) else [
                f"the gradient along the tangents is {rc['dirderiv']:.6g}, finite differences say "
                f"{float(fd['finals'][-1]):.6g}"]
        else:
            bad = [f"{k} #{i}: tcore {_fmt(x[j])}, finite differences {_fmt(fd[k][i])}"
                   for k, j in (("snaps", 3), ("finals", 1)) for i, x in enumerate(rc[k])
                   if i < len(fd[k]) and not _fd_close(fd[k][i], x[j])]
        cls = "wrong gradient" if mode == "bwd" else "wrong tangent"
        if bad:
            out.append((cls, f"{mode}: where torch raises", f"torch raises {rt['error'][2]}: {rt['error'][3][:150]}\n"
                        f"tcore runs it, with wrong derivatives: " + "; ".join(bad[:2])))
        else:
            out = [(d[0], d[1], d[2] + "\n(tcore's derivatives agree with finite differences)")
                   if d[0] == "missing error" else d for d in out]
    return out


def unspecified(stmts, rt) -> bool:
    """Whether torch ran a statement writing a tensor that an operand partially overlaps (see
    Gen.g_inplace): its values depend on the order of the loop, in torch as in tcore."""
    e = rt["error"]
    ran = e[1] if e is not None and e[0] == "stmt" else len(stmts)
    return any(s.endswith("# partial overlap") for s in stmts[:ran])


def modes_fd(modes) -> bool:
    return "fd" in modes


def both_checked(torch, stmts, rc, mode) -> list:
    """(--modes ...,fd) tcore's derivatives against finite differences where tcore and torch
    agree: a bug both libraries share. Only programs without detach/no_grad (finite
    differences see through them) and without kinks at hand (abs, relu, clamp...)."""
    if any(k in x for x in stmts for k in ("detach", "no_grad", "requires_grad_(False)", "abs", "relu", "clamp",
                                            "sqrt", "pow_(0.5)", "pow_(1.5)", "unfold", "expand", "as_strided",
                                            "overlap")):
        return []
    fd = referee(torch, stmts)
    if fd is None:
        return []
    if mode == "bwd":
        if "dirderiv" in rc and not _fd_close(fd["finals"][-1], rc["dirderiv"]):
            return [("wrong gradient", "bwd: tcore = torch, both differ from finite differences",
                     f"gradient along the tangents: {rc['dirderiv']:.6g}, finite differences "
                     f"{float(fd['finals'][-1]):.6g}")]
        return []
    bad = [f"{k} #{i}: tcore {_fmt(x[j])}, finite differences {_fmt(fd[k][i])}"
           for k, j in (("snaps", 3), ("finals", 1)) for i, x in enumerate(rc[k])
           if i < len(fd[k]) and not _fd_close(fd[k][i], x[j])]
    if bad:
        return [("wrong tangent", "fwd: tcore = torch, both differ from finite differences", "; ".join(bad[:2]))]
    return []


def check(torch, tcore, stmts, double, modes=("bwd", "fwd")) -> tuple[list, list, dict]:
    """Runs a program in both libraries and both modes: (divergences, notes, info)."""
    divs, notes, info = [], [], {}
    for mode in [m for m in modes if m != "fd"]:
        rt = run_program(torch, stmts, mode, double)
        rc = run_program(tcore, stmts, mode, double)
        d, n = compare(stmts, rt, rc, mode)
        if unspecified(stmts, rt):
            n += [f"{mode}: unspecified (partial overlap), not compared: {x[0]}" for x in d if x[0].startswith("wrong")]
            d = [x for x in d if not x[0].startswith("wrong")]
        d = judge(torch, stmts, d, rt, rc, mode, n)
        if not d and modes_fd(modes) and rt["error"] is None and rc["error"] is None:
            d = both_checked(torch, stmts, rc, mode)
        divs += d
        notes += n
        info[mode] = {"torch_error": rt["error"], "ran": rt["ran"], "grads": "grads" in rt}
    return divs, notes, info


# ============================================================================ generating


# in-place ops writing values that do not depend on the written tensor: well defined through
# a view whose elements overlap (an expanded tensor)
SAME_VALUE_WRITES = {"fill_", "zero_", "masked_fill_", "index_fill_", "fill_tensor", "masked_fill_tensor"}
SCALARS = ["0.5", "-1.5", "2.0", "0.25", "3.0", "-0.75", "1.25", "-2.0"]
FILLS = ["1.25", "-0.5", "0.75", "2.5", "-1.75"]
CLAMPS = ["-0.375", "0.625", "-0.875", "0.125", "1.125", "-1.625"]


def _data(r, shape):
    def val():
        v = round(r.uniform(-2, 2), 2)
        return v if v != 0 else 0.5

    def rec(s):
        return [rec(s[1:]) for _ in range(s[0])] if s else val()
    return rec(list(shape))


def _lit(x) -> str:
    return repr(x).replace(" ", "") if not isinstance(x, list) else "[" + ", ".join(_lit(v) for v in x) + "]"


def _bshape(r, shape):
    """A random shape that broadcasts to `shape`."""
    k = r.randint(0, len(shape))
    tail = list(shape[len(shape) - k:])
    return [1 if r.random() < 0.35 else d for d in tail]


def _broadcasts(src, dst) -> bool:
    if len(src) > len(dst):
        return False
    return all(a == b or a == 1 for a, b in zip(reversed(src), reversed(dst)))


class Gen:
    """Builds one program (a list of statements) at random, validated against torch as it goes."""

    def __init__(self, torch, seed, avoid=()):
        self.torch = torch
        self.r = random.Random(seed)
        self.avoid = set(avoid)
        self.stmts: list[str] = []
        self.tags: list[str] = []
        self.nx = self.nt = 0
        self.run = Run(torch, "bwd")
        self.pending = []  # statements a candidate needs first (new leaves)

    # -- the environment (what torch has at this point)
    def tensors(self):
        T = self.torch

        def usable(t):
            try:  # (a view whose base was modified in-place in a way torch rejects raises here)
                return bool(t.is_leaf or t.grad_fn is not None or True)
            except Exception:  # noqa: BLE001
                return False
        return [n for n in sorted(self.run.ns, key=_name_key) if n[:1] in "xt" and n[1:].isdigit()
                and isinstance(self.run.ns[n], T.Tensor) and usable(self.run.ns[n])]

    def t(self, name):
        return self.run.ns[name]

    def pick(self, names=None, pred=None):
        names = self.tensors() if names is None else names
        if pred is not None:
            names = [n for n in names if pred(self.t(n))]
        if not names:
            return None
        # recent names and views first
        w = [(1 + 2 * (i >= len(names) - 3)) * (3 if self.t(n)._is_view() else 1) * (3 if self.t(n).requires_grad else 1)
             for i, n in enumerate(names)]
        return self.r.choices(names, w)[0]

    def fresh(self):
        self.nt += 1
        return f"t{self.nt - 1}"

    def new_leaf(self, shape, rg=None) -> str:
        r = self.r
        rg = r.random() < 0.65 if rg is None else rg
        name = f"x{self.nx}"
        self.nx += 1
        args = [_lit(_data(r, shape)), "True" if rg else "False"]
        if rg:
            args.append(_lit(_data(r, shape)))
        self.pending.append((f"{name} = LEAF({', '.join(args)})", "leaf"))
        return name

    def shape(self):
        r = self.r
        nd = r.choices([0, 1, 2, 3], [1, 3, 6, 4])[0]
        return [r.randint(1, 4) for _ in range(nd)]

    def operand(self, shape, scalar=True, tensor0=False):
        """A tensor expression that broadcasts to `shape` (or a scalar)."""
        r = self.r
        u = r.random()
        if scalar and u < 0.25:
            return r.choice(SCALARS)
        if u < 0.6:
            n = self.pick(pred=lambda t: _broadcasts(list(t.shape), list(shape)))
            if n is not None:
                return n
        return self.new_leaf(_bshape(r, shape) if not tensor0 else [])

    def idx(self, n, m, unique):
        r = self.r
        if unique:
            return r.sample(range(n), min(m, n))
        return [r.randrange(n) for _ in range(m)]

    def basic_index(self, shape):
        r = self.r
        parts, d = [], 0
        for size in shape:
            u = r.random()
            if u < 0.3:
                parts.append(":")
            elif u < 0.5:
                parts.append(str(r.randrange(-size, size)))
            elif u < 0.8:
                a = r.randint(0, size)
                parts.append(f"{a}:{r.randint(a, size + 1)}" if r.random() < 0.5 else f"{a}:")
            else:
                a = r.randint(0, max(size - 1, 0))
                parts.append(f"{a if a else ''}::{r.randint(1, 3)}")
            if r.random() < 0.1:
                parts.append("None")
            d += 1
        while parts and parts[-1] == ":" and r.random() < 0.7:
            parts.pop()
        if r.random() < 0.1:
            parts.insert(r.randint(0, len(parts)), "...")
        if not parts:
            parts = [r.choice([":", "...", "None"])]
        return ", ".join(parts)

    # -- views
    def view(self, a):
        r, t = self.r, self.t(a)
        s, nd = list(t.shape), t.dim()
        opts = []
        if nd == 0:
            opts += [("unsqueeze", f"{a}.unsqueeze(0)"), ("view", f"{a}.view(1)"), ("expand", f"{a}.expand(3)"),
                     ("index_view", f"{a}[None]"), ("index_view", f"{a}[...]"), ("reshape", f"{a}.reshape(1, 1)")]
        if nd >= 1:
            d = r.randrange(nd)
            n = s[d]
            opts.append(("slice", f"{a}[{self.basic_index(s)}]"))
            opts.append(("index_view", f"{a}[{self.basic_index(s)}]"))
            if n:
                opts.append(("select", f"{a}.select({d}, {r.randrange(-n, n)})"))
                opts.append(("select", f"{a}[{r.randrange(n)}]"))
            st = r.randint(0, n)
            opts.append(("narrow", f"{a}.narrow({d}, {st}, {r.randint(0, n - st)})"))
            if n:
                opts.append(("unfold", f"{a}.unfold({d}, {r.randint(1, n)}, {r.randint(1, 3)})"))
            k = r.randint(1, max(n, 1))
            opts.append(("split", f"{a}.split({k}, {d})[{r.randrange(-(-n // k)) if n else 0}]"))
            if n:
                c = r.randint(1, n)
                opts.append(("chunk", f"{a}.chunk({c}, {d})[{r.randrange(len(t.chunk(c, d)))}]"))
                opts.append(("unbind", f"{a}.unbind({d})[{r.randrange(n)}]"))
                sizes = []
                left = n
                while left:
                    sizes.append(r.randint(1, left))
                    left -= sizes[-1]
                opts.append(("split", f"{a}.split({sizes}, {d})[{r.randrange(len(sizes))}]"))
            opts.append(("movedim", f"{a}.movedim({d}, {r.randrange(nd)})"))
            opts.append(("flatten", f"{a}.flatten()" if r.random() < 0.5 or nd < 2 else
                         f"{a}.flatten({r.randrange(nd - 1)}, {nd - 1})"))
            f = r.choice([x for x in range(1, n + 1) if n % x == 0]) if n else 1
            opts.append(("unflatten", f"{a}.unflatten({d}, ({f}, {n // f if f else 0}))" if r.random() < 0.7
                         else f"{a}.unflatten({d}, (-1, 1))"))
            opts.append(("unsqueeze", f"{a}.unsqueeze({r.randint(-nd - 1, nd)})"))
            opts.append(("squeeze", f"{a}.squeeze()" if r.random() < 0.4 else f"{a}.squeeze({d})"))
            new = list(s)
            new[d] = f
            new.insert(d + 1, n // f if f else 0)
            opts.append(("view", f"{a}.view({', '.join(map(str, new))})"))
            opts.append(("view", f"{a}.view(-1)"))
            if nd >= 2:
                merged = s[:d] + ([s[d] * s[d + 1]] + s[d + 2:] if d + 1 < nd else [])
                opts.append(("view", f"{a}.view({', '.join(map(str, merged))})" if merged else f"{a}.view(-1)"))
            opts.append(("reshape", f"{a}.reshape({', '.join(map(str, new))})"))
            opts.append(("reshape", f"{a}.reshape(-1)"))
            ex = [r.randint(1, 3) if x == 1 else x for x in s]
            if r.random() < 0.4:
                ex.insert(0, 2)
            opts.append(("expand", f"{a}.expand({', '.join(map(str, ex))})"))
            other = self.pick(pred=lambda o: o.numel() == t.numel() and list(o.shape) != s)
            if other is not None:
                opts.append(("view_as", f"{a}.view_as({other})"))
                opts.append(("reshape_as", f"{a}.reshape_as({other})"))
            # as_strided inside the storage
            # as_strided inside the tensor's own elements: torch defines its gradient only there
            storage = t.untyped_storage().nbytes() // 8
            if storage and storage == t.numel() and t.is_contiguous() and t.storage_offset() == 0:
                k = r.randint(1, 2)
                size = [r.randint(1, 3) for _ in range(k)]
                stride = [r.randint(0, 3) for _ in range(k)]
                span = sum((z - 1) * y for z, y in zip(size, stride))
                if span < storage:
                    off = r.randint(0, storage - 1 - span)
                    opts.append(("as_strided", f"{a}.as_strided({tuple(size)}, {tuple(stride)}, {off})"))
            opts.append(("detach", f"{a}.detach()"))
        if nd >= 2:
            d0, d1 = r.sample(range(nd), 2)
            opts.append(("transpose", f"{a}.transpose({d0}, {d1})"))
            opts.append(("transpose", f"{a}.swapaxes({d0}, {d1})"))
            p = list(range(nd))
            r.shuffle(p)
            opts.append(("permute", f"{a}.permute({', '.join(map(str, p))})"))
            opts.append(("diagonal", f"{a}.diagonal({r.randint(-1, 1)}, {d0}, {d1})"))
            opts.append(("diagonal", f"{a}.diagonal()"))
            opts.append(("mT", f"{a}.mT"))
        if nd <= 2:
            opts.append(("t", f"{a}.t()"))
        opts = [o for o in opts if o[0] not in self.avoid]
        return r.choice(opts)

    def g_view(self):
        a = self.pick()
        if a is None:
            return None
        tag, expr = self.view(a)
        return f"{self.fresh()} = {expr}", tag

    # -- non-leaf bases
    def g_base(self):
        r = self.r
        a = self.pick()
        if a is None:
            return None
        t = self.t(a)
        s = list(t.shape)
        sc = lambda: r.choice(SCALARS)  # noqa: E731
        op = lambda: self.operand(s, scalar=False)  # noqa: E731
        opts = [("mul", lambda: f"{a} * {sc()}"), ("add_scalar", lambda: f"{a} * {sc()} + {sc()}"),
                ("add_scalar", lambda: f"{a} + {sc()}"),
                ("clone", lambda: f"{a}.clone()"), ("exp", lambda: f"{a}.exp()"), ("sin", lambda: f"{a}.sin()"),
                ("tanh", lambda: f"{a}.tanh()"), ("contiguous", lambda: f"{a}.contiguous()"),
                ("binop", lambda: f"{a} * {op()}"), ("add_tensor", lambda: f"{a} + {op()}"),
                ("square", lambda: f"{a} ** 2"), ("mul", lambda: f"{a}.mul({sc()})")]
        if t.dim():
            d = r.randrange(t.dim())
            opts += [("sum", lambda: f"{a}.sum({d}, keepdim={r.random() < 0.5})"),
                     ("cumsum", lambda: f"{a}.cumsum({d})"), ("cat", lambda: f"T.cat([{a}, {a} * 2], {d})")]
            b = self.pick(pred=lambda o: o.dim() == t.dim() and all(
                x == y for i, (x, y) in enumerate(zip(o.shape, s)) if i != d))
            if b is not None:
                opts.append(("cat", lambda: f"T.cat([{a}, {b}], {d})"))
            opts.append(("stack", lambda: f"T.stack([{a}, {a}.sin()], {r.randint(0, t.dim())})"))
        opts = [o for o in opts if o[0] not in self.avoid]
        tag, fn = r.choice(opts)
        expr = fn()
        tag, expr = r.choice(opts)
        return f"{self.fresh()} = {expr}", tag

    # -- in-place
    def g_inplace(self, target=None):
        r = self.r
        v = target or self.pick()
        if v is None:
            return None
        t = self.t(v)
        s, nd = list(t.shape), t.dim()
        numel = t.numel()
        opts = []
        op = self.operand
        opts += [
            ("add_", lambda: f"{v}.add_({op(s)})"),
            ("add_", lambda: f"{v}.add_({op(s, scalar=False)}, alpha={r.choice(SCALARS)})"),
            ("sub_", lambda: f"{v}.sub_({op(s)})"),
            ("mul_", lambda: f"{v}.mul_({op(s)})"),
            ("mul_", lambda: f"{v}.mul_({v})"),
            ("div_", lambda: f"{v}.div_({r.choice(SCALARS)})"),
            ("div_", lambda: f"{v}.div_({op(s, scalar=False)}.abs() + 0.5)"),
            ("copy_", lambda: f"{v}.copy_({op(s, scalar=False)})"),
            ("fill_", lambda: f"{v}.fill_({r.choice(FILLS)})"),
            ("fill_tensor", lambda: f"{v}.fill_({op([], scalar=False, tensor0=True)})"),
            ("zero_", lambda: f"{v}.zero_()"),
            ("clamp_", lambda: "{}.clamp_({}, {})".format(v, *sorted(r.sample(CLAMPS, 2), key=float))),
            ("clamp_", lambda: f"{v}.clamp_(min={r.choice(CLAMPS)})"),
            ("clamp_", lambda: f"{v}.clamp_max_({r.choice(CLAMPS)})"),
            ("masked_fill_", lambda: f"{v}.masked_fill_({self.mask(s)}, {r.choice(FILLS)})"),
            ("masked_fill_tensor", lambda: f"{v}.masked_fill_({self.mask(s)}, {op([], scalar=False, tensor0=True)})"),
            ("addcmul_", lambda: f"{v}.addcmul_({op(s, scalar=False)}, {op(s, scalar=False)}, value={r.choice(SCALARS)})"),
            ("addcdiv_", lambda: f"{v}.addcdiv_({op(s, scalar=False)}, {op(s, scalar=False)}.abs() + 1, value=0.5)"),
            ("lerp_", lambda: f"{v}.lerp_({op(s, scalar=False)}, {r.choice(['0.25', '0.5', '0.75'])})"),
            ("unary_", lambda: f"{v}.{r.choice(['exp_', 'tanh_', 'sigmoid_', 'relu_', 'sin_', 'cos_', 'neg_', 'abs_'])}()"),
            ("unary_", lambda: f"{v}.abs_().add_(0.25).sqrt_()"),
            ("pow_", lambda: f"{v}.pow_({r.choice(['2', '3', '0.5'])})" if r.random() < 0.5
             else f"{v}.abs_().pow_(1.5)"),
            ("chain_", lambda: f"{v}.mul_({r.choice(SCALARS)}).add_({op(s)})"),
            ("put_", lambda: self.put(v, numel)),
            ("setitem", lambda: self.setitem(v, s)),
        ]
        if nd >= 1:
            d = r.randrange(nd)
            n = s[d]
            opts += [
                ("index_add_", lambda: self.index_op(v, s, d, "index_add_", unique=False)),
                ("index_copy_", lambda: self.index_op(v, s, d, "index_copy_", unique=True)),
                ("index_fill_", lambda: f"{v}.index_fill_({d}, T.tensor({self.idx(n, r.randint(1, n), True)}), "
                                        f"{r.choice(FILLS)})"),
                ("scatter_", lambda: self.scatter(v, s, d, "scatter_")),
                ("scatter_", lambda: self.scatter(v, s, d, "scatter_", value=True)),
                ("scatter_add_", lambda: self.scatter(v, s, d, "scatter_add_")),
                ("index_put_", lambda: f"{v}.index_put_((T.tensor({self.idx(s[0], r.randint(1, 4), False)}),), "
                                       f"{op(s[1:])}, accumulate=True)" if s[0] else None),
                ("masked_scatter_", lambda: f"{v}.masked_scatter_({self.mask(s)}, {self.new_leaf(s)})"),
                ("unsqueeze_", lambda: f"{v}.unsqueeze_({r.randint(0, nd)})"),
                ("squeeze_", lambda: f"{v}.squeeze_()"),
            ]
        if nd == 2:
            opts.append(("t_", lambda: f"{v}.t_()"))
        if nd >= 2:
            opts.append(("transpose_", lambda: f"{v}.transpose_(0, {nd - 1})"))
        opts = [o for o in opts if o[0] not in self.avoid]
        tag, fn = r.choice(opts)
        src = fn()
        if src is None:
            return None
        kind = self.overlaps(v, src)
        if kind != "partial" and tag not in SAME_VALUE_WRITES and self.torch._debug_has_internal_overlap(self.t(v)):
            kind = "partial"  # (a write through an expanded/overlapping view: also unspecified)
        if kind == "partial" and "partial_overlap" in self.avoid:
            self.pending = []
            return None
        if kind == "partial":
            # an operand sharing memory with the written tensor, not as the same elements: torch
            # rejects some of these (tcore must too), and where it does not, the result depends
            # on the order of the loop (unspecified): such a statement is kept only when torch
            # raises (see try_add)
            src += "  # partial overlap"
        return src, tag

    def overlaps(self, v, src):
        """None, "exact" (an operand is the written tensor's elements, in the same layout) or
        "partial" (an operand shares memory with it otherwise)."""
        t = self.t(v)
        ptr = t.untyped_storage().data_ptr()
        kind = None
        for name in set(re.findall(r"\b[xt]\d+\b", src.split("(", 1)[-1] if src.startswith(v + ".") else
                                   src.split("=", 1)[-1])):
            o = self.run.ns.get(name)
            if isinstance(o, self.torch.Tensor) and o.numel() and t.numel() and o.untyped_storage().data_ptr() == ptr:
                same = (o.data_ptr() == t.data_ptr() and o.shape == t.shape and o.stride() == t.stride())
                if not same:
                    return "partial"
                kind = "exact"
        return kind

    def mask(self, shape):
        r = self.r
        bs = _bshape(r, shape) if r.random() < 0.4 else list(shape)

        def rec(s):
            return [rec(s[1:]) for _ in range(s[0])] if s else r.random() < 0.5
        return f"T.tensor({_lit(rec(bs))})"

    def put(self, v, numel):
        r = self.r
        if not numel:
            return None
        acc = r.random() < 0.5
        ids = self.idx(numel, r.randint(1, min(numel, 4)), not acc)
        return f"{v}.put_(T.tensor({ids}), {self.new_leaf([len(ids)])}, accumulate={acc})"

    def index_op(self, v, s, d, name, unique):
        r = self.r
        if not s[d]:
            return None
        ids = self.idx(s[d], r.randint(1, s[d] + (0 if unique else 2)), unique)
        src_shape = list(s)
        src_shape[d] = len(ids)
        same = self.pick(pred=lambda o: list(o.shape) == src_shape)
        src = same if same is not None and r.random() < 0.4 else self.new_leaf(src_shape)
        extra = f", alpha={r.choice(SCALARS)}" if name == "index_add_" and r.random() < 0.4 else ""
        return f"{v}.{name}({d}, T.tensor({ids}), {src}{extra})"

    def scatter(self, v, s, d, name, value=False):
        r = self.r
        if not s[d]:
            return None
        ishape = [r.randint(1, x) if x else 0 for x in s]
        if name == "scatter_":
            ishape[d] = r.randint(1, s[d])

        import numpy as np  # (the generator side only)
        idx = np.zeros(ishape, dtype=np.int64)
        for pos in np.ndindex(*[x for i, x in enumerate(ishape) if i != d]):
            vals = self.idx(s[d], ishape[d], unique=(name == "scatter_"))
            for j, val in enumerate(vals):
                full = list(pos)
                full.insert(d, j)
                idx[tuple(full)] = val
        src_shape = [x + (1 if r.random() < 0.2 else 0) for x in ishape]
        src = r.choice(FILLS) if value else self.new_leaf(src_shape)
        return f"{v}.{name}({d}, T.tensor({_lit(idx.tolist())}), {src})"

    def setitem(self, v, s):
        r = self.r
        u = r.random()
        if u < 0.5 or not s:
            index = self.basic_index(s) if s else r.choice(["...", "None", "()"])
        elif u < 0.75:
            index = f"T.tensor({self.idx(s[0], r.randint(1, s[0]), True)})" if s[0] else ":"
            if len(s) > 1 and r.random() < 0.5:
                index += ", " + r.choice(["1:", "::2", "0", ":"])
        else:
            index = self.mask(s if r.random() < 0.7 else s[:1])
        try:
            target = self.t(v)[eval(f"({index},)" if index != "()" else "()", {"T": self.torch})]
        except Exception:  # noqa: BLE001 - an invalid index: torch decides later
            return f"{v}[{index}] = {r.choice(FILLS)}"
        val = self.operand(list(target.shape)) if r.random() < 0.8 else r.choice(FILLS)
        return f"{v}[{index}] = {val}"

    def chain(self):
        """A scenario: a non-leaf base of a leaf requiring grad, a chain of views of it, writes
        through them (two of them overlapping, in either order), reads of the base."""
        r = self.r
        a = self.pick(pred=lambda t: t.requires_grad) or self.pick()
        if a is None:
            return
        if self.t(a).is_leaf and self.t(a).requires_grad:
            how = r.choice([o for o in [(" * 1.5", "mul"), (".clone()", "clone"), (" + 0.25", "add_scalar"),
                                        (".exp()", "exp")] if o[1] not in self.avoid] or [(".clone()", "clone")])
            if self.try_add((f"{self.fresh()} = {a}{how[0]}", how[1]), 0.0) != "ok":
                return
            a = f"t{self.nt - 1}"
        base, views = a, []
        for _ in range(r.randint(1, 3)):
            src = r.choice(views + [base]) if views and r.random() < 0.4 else (views[-1] if views else base)
            tag, expr = self.view(src)
            if self.try_add((f"{self.fresh()} = {expr}", tag), 0.0) == "ok":
                views.append(f"t{self.nt - 1}")
        if not views:
            return
        for v in r.sample(views + [base], min(len(views) + 1, r.randint(1, 3))):
            cand = self.g_inplace(v)
            if cand is not None and cand[1] not in self.avoid:
                res = self.try_add(cand, 0.04)
                if res == "error":
                    return "error"
            else:
                self.pending = []
            if r.random() < 0.5:
                other = r.choice(views + [base])
                if other in self.run.ns:
                    self.try_add(self.g_out(other), 0.0)

    # -- the rest
    def g_control(self):
        r = self.r
        v = self.pick()
        if v is None:
            return None
        t = self.t(v)
        u = r.random()
        if u < 0.25:
            return f"{self.fresh()} = {v}.detach()", "detach"
        if u < 0.35:
            return f"{v}.detach_()", "detach_"
        if u < 0.6:
            if "rg_nonleaf" in self.avoid and not t.is_leaf:
                return None
            return (f"{v}.requires_grad_()" if not t.requires_grad or r.random() < 0.2
                    else f"{v}.requires_grad_(False)"), "requires_grad_"
        if u < 0.8:
            return f"RETAIN({v})", "retain_grad"
        inner = self.g_inplace(v) if r.random() < 0.6 else self.g_view()
        if inner is None:
            return None
        return "with T.no_grad():\n    " + inner[0], "no_grad+" + inner[1]

    def g_out(self, base_first=None):
        r = self.r
        v = base_first or self.pick()
        if v is None:
            return None
        if r.random() < 0.65:
            return f"OUT({v})", "out"
        f = r.choice(["{}", "{}.sin()", "{}.exp()", "({} * {})", "{}.tanh()", "{}.pow(3)"])
        return f"ACC({f.format(v, v)})", "acc"

    def related(self, v):
        """Another name sharing storage with v (its base, a view of it, a sibling view)."""
        t = self.t(v)
        base = t._base if t._base is not None else t
        names = [n for n in self.tensors() if n != v and (self.t(n) is base or self.t(n)._base is base)]
        if t._base is not None and self.r.random() < 0.5:
            names = [n for n in names if self.t(n) is base] or names
        return self.r.choice(names) if names else None

    # -- driving
    def try_add(self, cand, keep_error_p):
        """Appends the candidate (and its pending leaves) if torch runs it; a candidate torch
        rejects is kept, ending the program, with probability keep_error_p."""
        src, tag = cand
        stmts = self.pending + [(src, tag)]
        self.pending = []
        for i, (s, tg) in enumerate(stmts):
            ok = self.run.exec(s)
            if ok and s.endswith("# partial overlap"):
                self.replay()  # (torch accepts it: unspecified, see g_inplace)
                return "rejected"
            if not ok:
                p = 0.4 if s.endswith("# partial overlap") else keep_error_p
                if i == len(stmts) - 1 and self.r.random() < p:
                    self.stmts += [x[0] for x in stmts]
                    self.tags += [x[1] for x in stmts]
                    return "error"
                self.replay()
                return "rejected"
        self.stmts += [x[0] for x in stmts]
        self.tags += [x[1] for x in stmts]
        return "ok"

    def replay(self):
        self.run = Run(self.torch, "bwd")
        for s in self.stmts:
            self.run.exec(s)
        self.run.error = None

    def generate(self, length=None):
        r = self.r
        length = length or r.randint(5, 22)
        for _ in range(r.randint(1, 3)):
            self.new_leaf(self.shape(), rg=r.random() < 0.75)
        for s, tg in self.pending:
            self.run.exec(s)
            self.stmts.append(s)
            self.tags.append(tg)
        self.pending = []
        kinds = ["leaf", "base", "view", "inplace", "control", "out", "chain"]
        w = [0.05, 0.1, 0.22, 0.27, 0.1, 0.08, 0.18]
        tries = 0
        while len(self.stmts) < length and tries < 200:
            tries += 1
            kind = r.choices(kinds, w)[0]
            if kind == "chain":
                try:
                    if self.chain() == "error":
                        return self.stmts
                except Exception:  # noqa: BLE001 - a generator bug is no finding
                    self.pending = []
                continue
            if kind == "leaf":
                self.new_leaf(self.shape())
                cand = (self.pending.pop()[0], "leaf")
            else:
                try:
                    cand = getattr(self, "g_" + kind)()
                except Exception:  # noqa: BLE001 - a generator bug is no finding: try another
                    self.pending = []
                    continue
            if cand is None or (cand[1] in self.avoid) or any(p[1] in self.avoid for p in self.pending):
                self.pending = []
                continue
            res = self.try_add(cand, keep_error_p=0.03 if kind in ("inplace", "view", "control") else 0.0)
            if res == "error":
                return self.stmts
            if res == "ok" and kind in ("inplace", "control") and r.random() < 0.45:
                # read the base (or another view of it) after writing a view, and vice versa
                m = re_target(cand[0])
                if isinstance(self.run.ns.get(m), self.torch.Tensor) and m in self.tensors():
                    other = self.related(m)
                    if other is not None:
                        self.try_add(self.g_out(other), 0.0)
        outs = r.randint(1, 3)
        for _ in range(outs):
            v = self.pick(pred=lambda t: t.requires_grad) or self.pick()
            if v is not None:
                self.try_add((f"OUT({v})", "out"), 0.0)
        return self.stmts


def re_target(src: str):
    line = src.strip().splitlines()[-1].strip()
    name = ""
    for ch in line:
        if ch.isalnum() or ch == "_":
            name += ch
        else:
            break
    return name


def generate(torch, seed: int, index: int, avoid=()) -> tuple[list[str], list[str], bool]:
    """Program `index` of a run with `seed`: (statements, tags, double backward?). A program
    whose backward torch rejects (a saved tensor modified in-place) is mostly replaced by
    another one, so that most programs reach the gradients."""
    sub = random.Random((seed * 1_000_003 + index) & 0xFFFFFFFF)
    for attempt in range(4):
        g = Gen(torch, sub.getrandbits(32), avoid)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stmts = g.generate()
            double = g.r.random() < 0.35
            if attempt == 3 or sub.random() < 0.2:
                break
            e = run_program(torch, stmts, "bwd", False)["error"]
            if e is None or e[0] == "stmt":
                break
    return stmts, g.tags, double


# ============================================================================ reproducers

PREAMBLE = '''\
import math, warnings
import numpy as np
import torch, tcore
warnings.simplefilter("ignore")

def run(T, mode="{mode}"):
    fw = __import__(T.__name__ + ".autograd.forward_ad", fromlist=["x"])
    outs, accs, kept, rec = [], [], [], []
    W = lambda o, k: T.tensor([math.cos(1.3 * i + 0.7 * k + 0.1) for i in range(o.numel())],
                              dtype=T.float64).reshape(tuple(o.shape))
    val = (lambda x: [v if v is None else v.detach().clone().numpy() for v in fw.unpack_dual(x)]) \\
        if mode == "fwd" else (lambda x: x.detach().clone().numpy())
    def LEAF(data, rg=False, tan=None):
        if mode == "fwd":
            x = T.tensor(data, dtype=T.float64)
            return fw.make_dual(x, T.tensor(tan, dtype=T.float64)) if rg and tan is not None else x
        return T.tensor(data, dtype=T.float64, requires_grad=rg)
    def OUT(x): outs.append(x); rec.append(("OUT", val(x)))
    def ACC(y): accs.append((y * W(y, 50 + len(accs))).sum()); rec.append(("ACC", val(accs[-1])))
    def RETAIN(x): (x.retain_grad(), kept.append(x)) if mode == "bwd" else None
    level = fw.enter_dual_level() if mode == "fwd" else None
    try:
{body}
        loss = sum([(o * W(o, k)).sum() for k, o in enumerate(outs)] + accs, T.zeros((), dtype=T.float64))
        rec.append(("loss", val(loss)))
        if mode == "bwd" and loss.requires_grad:
            leaves = {{n: v for n, v in sorted(locals().items()) if isinstance(v, T.Tensor) and v.is_leaf
                      and v.requires_grad}}
            g = T.autograd.grad(loss, list(leaves.values()), retain_graph=True, allow_unused=True)
            rec += [("grad " + n, None if x is None else x.numpy()) for n, x in zip(leaves, g)]{double}
            loss.backward()
            rec += [("retained .grad", None if x.grad is None else x.grad.numpy()) for x in kept]
    except Exception as e:
        rec.append(("raises", f"{{type(e).__name__}}: {{e}}".splitlines()[0]))
    finally:
        if level is not None:
            fw.exit_dual_level(level=level)
    return rec

for T in (torch, tcore):
    print(T.__name__)
    for what, v in run(T):
        print("   ", what, v)
'''

DOUBLE = '''
            g2 = T.autograd.grad(loss, list(leaves.values()), retain_graph=True, create_graph=True, allow_unused=True)
            s = sum((gi * W(gi, 100 + i)).sum() for i, gi in enumerate(g2) if gi is not None and gi.requires_grad)
            if isinstance(s, T.Tensor) and s.requires_grad:
                gg = T.autograd.grad(s, list(leaves.values()), retain_graph=True, allow_unused=True)
                rec += [("double backward " + n, None if x is None else x.numpy()) for n, x in zip(leaves, gg)]'''


def reproducer(stmts: list[str], mode: str, double: bool) -> str:
    body = "\n".join("        " + line for s in stmts for line in s.splitlines())
    return PREAMBLE.format(mode=mode, body=body, double=DOUBLE if double and mode == "bwd" else "")


# ============================================================================ the worker


def worker() -> None:
    import numpy  # noqa: F401
    import torch

    import tcore
    torch.set_num_threads(1)
    try:
        tcore.set_num_threads(1)
    except Exception:  # noqa: BLE001
        pass
    out = sys.stdout
    sys.stdout = sys.stderr  # (programs never print, but keep the protocol clean)
    print(json.dumps({"ready": True}), file=out, flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        try:
            divs, notes, info = check(torch, tcore, job["stmts"], job["double"], job.get("modes", ("bwd", "fwd")))
        except Exception:  # noqa: BLE001 - a harness failure is reported, not swallowed
            divs, notes, info = [("harness error", "", traceback.format_exc()[-1500:])], [], {}
        print(json.dumps({"id": job["id"], "divs": divs, "notes": notes, "info": info}, default=str),
              file=out, flush=True)


class Worker:
    def __init__(self, timeout: float, modes=("bwd", "fwd")):
        self.timeout, self.modes = timeout, list(modes)
        self.proc = None
        self.crash_output = ""

    def start(self):
        env = dict(os.environ)
        # DIFF_FUZZ_TCORE: another directory holding the tcore package (a snapshot, for long runs
        # while the tree is being rebuilt)
        first = os.environ.get("DIFF_FUZZ_TCORE", str(ROOT))
        env["PYTHONPATH"] = os.pathsep.join([first] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        env.setdefault("OMP_NUM_THREADS", "1")
        self.proc = subprocess.Popen([sys.executable, "-X", "faulthandler", str(Path(__file__).resolve()), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env, cwd=str(ROOT))
        line = self._read(120)
        if line is None:
            raise RuntimeError("the worker did not start:\n" + self.crash_output)

    def _read(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.crash_output = self.proc.stderr.read()[-3000:]
            return None
        return line

    def check(self, stmts, double) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.proc.stdin.write(json.dumps({"id": 0, "stmts": stmts, "double": double, "modes": self.modes}) + "\n")
        self.proc.stdin.flush()
        line = self._read(self.timeout)
        if line is None:
            alive = self.proc.poll() is None
            self.stop()
            if alive:
                return {"divs": [("hang", "", f"no answer in {self.timeout} s")], "notes": [], "info": {}}
            return {"divs": [("crash", "", f"the worker died (exit {self.proc.returncode}):\n{self.crash_output}")],
                    "notes": [], "info": {}}
        return json.loads(line)

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                try:
                    f.close()
                except Exception:  # noqa: BLE001
                    pass


# ============================================================================ minimizing and running


def _key(d) -> tuple:
    """(class, mode, which error) of a divergence: what minimizing keeps."""
    err = d[2].splitlines()[0][:48] if d[0] in ("missing error", "spurious error") else ""
    return d[0], d[1].split(":")[0], err


def signature(divs) -> set:
    return {_key(d) for d in divs}


def minimize(worker: Worker, stmts, double, target, budget=400):
    """Drops statements (and simplifies leaves) while the divergence `target` ((class, mode))
    remains."""
    calls = 0

    def still(c, dbl):
        nonlocal calls
        calls += 1
        return target in signature(worker.check(c, dbl)["divs"])

    if double and still(stmts, False):
        double = False
    changed = True
    while changed and calls < budget:
        changed = False
        # chunks, then single statements, from the end
        for size in (8, 4, 2, 1):
            i = len(stmts) - size
            while i >= 0 and calls < budget:
                cand = stmts[:i] + stmts[i + size:]
                if cand and still(cand, double):
                    stmts, changed = cand, True
                i -= 1 if size == 1 else size
        # simplifications: unwrap no_grad blocks, leaves without grad
        for i in range(len(stmts)):
            if calls >= budget or i >= len(stmts):
                break
            s = stmts[i]
            cands = []
            if s.startswith("with T.no_grad():"):
                cands.append(s.split("\n", 1)[1].strip())
            if "LEAF(" in s and ", True" in s:
                cands.append(s.split(", True")[0] + ")")
            for c in cands:
                cand = stmts[:i] + [c] + stmts[i + 1:]
                if still(cand, double):
                    stmts, changed = cand, True
                    break
    # statements using names nothing defines (what dropping their definitions left behind)
    pruned, defined = [], set()
    for x in stmts:
        used = set(re.findall(r"\b[xt]\d+\b", x.split(" = ", 1)[1] if re.match(r"\w+ = ", x) else x))
        if used <= defined:
            pruned.append(x)
            m = re.match(r"(\w+) = ", x)
            if m:
                defined.add(m.group(1))
    if pruned != stmts and still(pruned, double):
        stmts = pruned
    if target[1] == "bwd":  # (tangents play no part in backward mode)
        stmts = [s.split(", True, ")[0] + ", True)" if "LEAF(" in s and ", True, " in s else s for s in stmts]
    return stmts, double


@dataclasses.dataclass
class Finding:
    index: int
    cls: str
    where: str
    detail: str
    stmts: list
    double: bool
    minimized: list | None = None
    min_double: bool = False
    min_detail: str = ""

    @property
    def mode(self):
        return self.where.split(":")[0]

    def program(self, minimized=True):
        s = self.minimized if (minimized and self.minimized is not None) else self.stmts
        return "\n".join(s)

    def format(self, script=True) -> str:
        out = [f"program {self.index}: {self.cls} ({self.where})", "  " + self.detail.replace("\n", "\n  ")]
        s = self.minimized if self.minimized is not None else self.stmts
        out.append("  minimized program:" if self.minimized is not None else "  program:")
        out += ["    " + line for x in s for line in x.splitlines()]
        if self.min_detail:
            out.append("  minimized divergence: " + self.min_detail.replace("\n", "\n    "))
        if script:
            out.append("  self-contained reproducer (python - <<'EOF' ... EOF):")
            out.append("    " + reproducer(s, self.mode, self.min_double if self.minimized is not None
                                           else self.double).replace("\n", "\n    "))
        return "\n".join(out)


@dataclasses.dataclass
class Report:
    programs: int = 0
    seconds: float = 0.0
    findings: list = dataclasses.field(default_factory=list)  # the first one of each (class, mode, ops) group
    counts: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    notes: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    stats: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    torch_errors: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def format(self, script=True, limit=None) -> str:
        """The findings, minimized ones first; past `limit`, one line each."""
        lines = [f"{self.programs} programs in {self.seconds:.1f} s; divergent programs by class: {dict(self.counts)}"]
        ordered = sorted(self.findings, key=lambda f: f.minimized is None)
        for k, f in enumerate(ordered):
            if limit is not None and k >= limit:
                lines.append(f"program {f.index}: {f.cls} ({f.where})")
            else:
                lines += ["", f.format(script)]
        return "\n".join(lines)


def run(programs=300, seed=0, start=0, avoid=(), minimize_findings=True, max_minimize=8, timeout=60.0,
        progress=None, min_budget=300, modes=("bwd", "fwd")) -> Report:
    import torch
    torch.set_num_threads(1)
    report = Report()
    t0 = time.time()
    w = Worker(timeout, modes)
    seen = set()
    try:
        for k in range(start, start + programs):
            stmts, tags, double = generate(torch, seed, k, avoid)
            res = w.check(stmts, double)
            report.programs += 1
            for n in res["notes"]:
                report.notes[n.split(" at ")[0].split("(")[0][:60]] += 1
            for mode, inf in res.get("info", {}).items():
                e = inf["torch_error"]
                report.stats[f"{mode} torch raised" if e else f"{mode} ran"] += 1
                if e:
                    report.torch_errors[f"{mode} {e[0]}: {e[3][:70]}"] += 1
            if not res["divs"]:
                continue
            sig = signature(res["divs"])
            for s in {x[:2] for x in sig}:
                report.counts[s] += 1
            cls, where, detail = res["divs"][0]
            target = _key(res["divs"][0])
            key = (cls, where.split(":")[0], frozenset(t for t in tags if t not in ("leaf", "out")))
            f = Finding(k, cls, where, detail, stmts, double)
            if minimize_findings and len([x for x in report.findings if x.minimized is not None]) < max_minimize:
                f.minimized, f.min_double = minimize(w, stmts, double, target, budget=min_budget)
                r2 = w.check(f.minimized, f.min_double)
                same = [d for d in r2["divs"] if _key(d) == target]
                if same:
                    f.min_detail = f"{same[0][1]}\n{same[0][2]}"
                key = (cls, where.split(":")[0], tuple(f.minimized))
            if key not in seen:
                seen.add(key)
                report.findings.append(f)
                if progress:
                    progress(f)
    finally:
        w.stop()
    report.seconds = time.time() - t0
    return report


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--programs", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--avoid", default="", help="comma-separated tags (ops) the generator leaves out")
    p.add_argument("--no-minimize", action="store_true")
    p.add_argument("--max-minimize", type=int, default=40)
    p.add_argument("--show", help="SEED:INDEX: print that program (and its reproducer) and exit")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--json", help="write the findings here")
    p.add_argument("--modes", default="bwd,fwd",
                   help="bwd (backward), fwd (forward AD), both; add fd to check also where tcore and torch "
                        "agree, against finite differences")
    a = p.parse_args(argv)
    if a.worker:
        return worker()
    avoid = [x for x in a.avoid.split(",") if x]
    if a.show:
        import torch
        s, i = map(int, a.show.split(":"))
        stmts, tags, double = generate(torch, s, i, avoid)
        print("\n".join(stmts))
        print("# tags:", tags, "double:", double)
        return
    rep = run(a.programs, a.seed, a.start, avoid, not a.no_minimize, a.max_minimize,
              progress=lambda f: print(f.format(script=False) + "\n", flush=True), modes=a.modes.split(","))
    print(f"{rep.programs} programs in {rep.seconds:.1f} s")
    print("divergent programs by (class, mode):", dict(rep.counts))
    print("stats:", dict(rep.stats))
    print("notes:", dict(rep.notes.most_common(30)))
    print("torch's errors:")
    for k, v in rep.torch_errors.most_common(25):
        print(f"  {v:5d}  {k}")
    if a.json:
        Path(a.json).write_text(json.dumps([dataclasses.asdict(f) for f in rep.findings], indent=1))


if __name__ == "__main__":
    main()
