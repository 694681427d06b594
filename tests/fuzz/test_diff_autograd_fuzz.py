"""A short fixed-seed run of the differential autograd fuzzer (tests/fuzz/diff_autograd_fuzz.py):
random programs of views and in-place operations run in tcore and in torch (float64, the same
inputs); forward values, errors, gradients (autograd.grad, .grad, retain_grad, double
backward) and forward-mode tangents must agree. Any divergence is printed minimized, with a
self-contained reproducer script. Long runs:
    python tests/fuzz/diff_autograd_fuzz.py --programs 5000 --seed 1"""
import pytest

pytest.importorskip("torch", reason="torch is the oracle of this test")
pytest.importorskip("tcore._C", reason="tcore is not built (run doit)")

import diff_autograd_fuzz  # noqa: E402

PROGRAMS = 300
SEED = 2026

# Divergences still open (December 2026), each with the most this run may show: anything else, or
# more of one, fails. Fixed since the fuzzer's first run (75 of 600 programs diverged, 36 after):
# tangents shared between an output and its input, grad() running nodes off the paths to its
# inputs, partial overlaps, fill_(Tensor), detach_.
KNOWN = {
    # torch refuses writes through a view made before its base required grad (or after
    # requires_grad_(False)); tcore lets them through (its gradients then are right: checked by
    # finite differences)
    ("missing error", "a leaf Variable that requires grad is being used in an in-place operation"): 11,
    ("missing error", "a view of a leaf Variable that requires grad is being used in an in-place"): 0,
    # writes into expanded (self-overlapping) tensors: torch accepts some that tcore refuses (fill_ of
    # an expanded dual tensor, setitem through one), refuses one tcore accepts
    ("missing error", "more than one element of the written-to tensor"): 1,
    ("spurious error", "more than one element of the written-to tensor"): 2,
    # scatter_add with an empty float index: its backward's gather refuses the index
    ("spurious error", "gather(): Expected dtype int32/int64 for index"): 1,
    # a view made before its base had a tangent does not see the base's tangent (torch derives the
    # view's lazily): the open forward-AD bug
    ("wrong tangent", ""): 3,
}


def _known(finding):
    return next((k for k in KNOWN if k[0] == finding.cls and k[1] in finding.detail), None)


def test_fixed_seed_run_finds_no_divergence():
    report = diff_autograd_fuzz.run(programs=PROGRAMS, seed=SEED, max_minimize=0)  # (minimizing: the CLI)
    assert report.programs == PROGRAMS
    new = [f for f in report.findings if _known(f) is None]
    assert not new, "\n" + "\n\n".join(f.format(script=True) for f in new[:3])
    counts = {k: sum(_known(f) == k for f in report.findings) for k in KNOWN}
    assert all(counts[k] <= most for k, most in KNOWN.items()), counts
    # the programs did exercise gradients and tangents, not only errors
    assert report.stats["bwd ran"] > PROGRAMS // 3
    assert report.stats["fwd ran"] > PROGRAMS // 2


def test_programs_are_deterministic_and_varied():
    import torch

    first = [diff_autograd_fuzz.generate(torch, 7, i) for i in range(25)]
    assert first == [diff_autograd_fuzz.generate(torch, 7, i) for i in range(25)]
    assert len({tuple(p[0]) for p in first}) == 25
    tags = {t for _, ts, _ in first for t in ts}
    assert {"leaf", "out"} <= tags and len(tags) > 25


def test_a_planted_divergence_is_found():
    """The comparison is not vacuous: a program whose two runs differ (here: only tcore's run
    sees a different constant) is reported, with a reproducer."""
    import torch

    import tcore

    stmts = ["x0 = LEAF([1.0, 2.0], True, [0.5, -1.0])",
             "t0 = x0 * (3.0 if T.__name__ == 'tcore' else 2.0)",
             "OUT(t0)"]
    divs, _, _ = diff_autograd_fuzz.check(torch, tcore, stmts, False)
    classes = {d[0] for d in divs}
    assert {"wrong value", "wrong gradient", "wrong tangent"} <= classes
    script = diff_autograd_fuzz.reproducer(stmts, "bwd", False)
    compile(script, "<reproducer>", "exec")
