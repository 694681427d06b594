"""fmod and remainder of floats are exact (C's fmod): the vector path's quotient-and-FMA form and
SLEEF's fallback (huge quotients, infinite divisors, NaN) against numpy's fmod, bit for bit and sign
of zero included, at quotients that round up to the next integer, every scale and special value;
each CPU capability in its own process (the SSE4 copy has no FMA and keeps SLEEF's; one this CPU
lacks runs the best it has)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = r"""
import numpy as np, tcore
rng = np.random.default_rng(0)
bad = []
for dt in (np.float32, np.float64):
    tiny = 1e-40 if dt == np.float64 else 1e-39
    for sx, sy in ((1, 1), (1e3, 1e-2), (1e6, 0.7), (1e-3, 1e-3), (1e7, 1.0), (1e30, 1e-30), (1, tiny)):
        n = 30_001
        x = (rng.standard_normal(n) * sx).astype(dt)
        y = (rng.standard_normal(n) * sy).astype(dt)
        k = rng.integers(-1000, 1000, n).astype(dt)
        x[::3] = (k[::3] * y[::3]).astype(dt)          # whole multiples: zeros of either sign
        x[1::3] = np.nextafter((k[1::3] * y[1::3]).astype(dt), np.inf)  # just past them
        x[2::3] = np.nextafter((k[2::3] * y[2::3]).astype(dt), -np.inf)  # just short: x / y rounds up
        sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3.0, -3.0, 1e-45], dtype=dt)
        xs = np.concatenate([x, np.repeat(sp, len(sp))])
        ys = np.concatenate([y, np.tile(sp, len(sp))])
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.fmod(xs, ys)
            wants = {"fmod": r, "remainder": np.where((r != 0) & ((r < 0) != (ys < 0)), r + ys, r)}
        for name, want in wants.items():
            got = getattr(tcore, name)(tcore.from_numpy(xs), tcore.from_numpy(ys)).numpy()
            same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))
            if not same.all():
                i = np.flatnonzero(~same)[0]
                bad.append((dt.__name__, name, sx, sy, float(xs[i]), float(ys[i]), float(got[i]), float(want[i])))
        got = tcore.fmod(tcore.from_numpy(x), 1.5).numpy()
        want = np.fmod(x, dt(1.5))
        if not ((got == want) & (np.signbit(got) == np.signbit(want))).all():
            bad.append((dt.__name__, "fmod by a number", sx))
print(repr(bad))
"""


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_fmod_and_remainder_are_exact(tcore, capability):
    env = {**os.environ, "TCORE_CPU_CAPABILITY": capability}
    r = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout[-3000:]
