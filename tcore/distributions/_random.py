"""Samplers tcore has no operator for (gamma, Poisson, binomial), the reparameterized gamma draw
and the regularized lower incomplete gamma function, written with tcore's operators and RNG.

Every sampler works in float64 on the flattened parameters and loops over the draws still
rejected (vectorized rejection sampling), so it stays exact for any parameter:

* gamma: Marsaglia and Tsang (2000), with the boost Gamma(a) = Gamma(a + 1) U^(1/a) for a < 1;
* Poisson: products of uniforms for rates below 10, Hormann's PTRS (1993) above;
* binomial: geometric waiting times for n min(p, 1-p) below 10, Hormann's BTRS (1993) above,
  its acceptance test on the exact log-pmf (lgamma).

The gradient of a gamma draw x with respect to its concentration a is the implicit
reparameterization gradient dx/da = -(dP(a, x)/da) / p(x; a) (P the gamma CDF, p the density),
which both torch and this module use. Here dP/da is computed to double precision: the power series
of P (for x < a + 1) or the continued fraction of 1 - P (else, modified Lentz) are evaluated
together with their derivative in a (forward-mode dual numbers), and the ratio taken in closed
form, dx/da = -x (S (log x - digamma a) + S') for the series sum S, x (h (log x - digamma a) + h')
for the continued fraction h."""
from __future__ import annotations

import math

import tcore
from tcore.autograd.function import Function, once_differentiable

_F64 = tcore.float64
_EPS = 2.0 ** -53
_TINY = 1e-300
_MAX_ITER = 100000


def _flat64(t):
    return t.detach().reshape(-1).to(_F64)


def _rand(n):
    return tcore.rand(n, dtype=_F64)


def _randn(n):
    return tcore.randn(n, dtype=_F64)


# --- gamma -------------------------------------------------------------------------------------

def _marsaglia_tsang(a):
    """Gamma(a) draws for a 1-D float64 tensor a >= 1."""
    d = a - 1.0 / 3.0
    c = (9.0 * d).rsqrt()
    out = tcore.empty_like(a)
    todo = tcore.arange(a.numel())
    while todo.numel():
        dd, cc = d[todo], c[todo]
        z, u = _randn(todo.numel()), _rand(todo.numel())
        v = 1.0 + cc * z
        ok = v > 0
        v3 = tcore.where(ok, v * v * v, tcore.ones_like(v))
        ok = ok & (u.log() < 0.5 * z * z + dd - dd * v3 + dd * v3.log())
        out[todo[ok]] = (dd * v3)[ok]
        todo = todo[~ok]
    return out


def standard_gamma(alpha):
    """Gamma(alpha, 1) draws of alpha's shape and dtype (no gradient)."""
    a = _flat64(alpha)
    valid = (a > 0) & tcore.isfinite(a)
    a = tcore.where(valid, a, tcore.ones_like(a))
    small = a < 1
    x = _marsaglia_tsang(tcore.where(small, a + 1.0, a))
    if bool(small.any()):
        x = tcore.where(small, (x.log() + _rand(a.numel()).log() / a).exp(), x)
    x = tcore.where(valid, x, tcore.full_like(x, math.nan))
    return x.reshape(alpha.shape).to(alpha.dtype)


def _series(a, x):
    """S = sum_n x^n / (a (a+1) ... (a+n)) and dS/da."""
    t = 1.0 / a
    dt = -t * t
    s, ds = t.clone(), dt.clone()
    done = tcore.zeros_like(x, dtype=tcore.bool)
    for n in range(1, _MAX_ITER):
        r = x / (a + n)
        t = t * r
        dt = dt * r - t / (a + n)
        s, ds = s + t, ds + dt
        # (an element once converged stays so: its later terms are smaller still)
        done = done | ((t.abs() <= _EPS * s.abs()) & (dt.abs() <= _EPS * ds.abs()))
        if n % 4 == 0 and bool(done.all()):
            break
    return s, ds


def _continued_fraction(a, x):
    """h with 1 - P(a, x) = x^a e^-x h / Gamma(a) (modified Lentz) and dh/da."""
    def guard(v):
        return tcore.where(v.abs() < _TINY, tcore.full_like(v, _TINY), v)

    b = x + 1.0 - a
    c, dc = tcore.full_like(x, 1.0 / _TINY), tcore.zeros_like(x)
    d = 1.0 / guard(b)
    dd = d * d  # d/da (1 / b) with db/da = -1
    h, dh = d.clone(), dd.clone()
    done = tcore.zeros_like(x, dtype=tcore.bool)
    for i in range(1, _MAX_ITER):
        an, dan = -i * (i - a), float(i)
        b = b + 2.0
        dn = an * d + b
        ddn = dan * d + an * dd - 1.0
        cn = b + an / c
        dcn = -1.0 + (dan - an * dc / c) / c
        dn, cn = guard(dn), guard(cn)
        d, dd = 1.0 / dn, -ddn / (dn * dn)
        c, dc = cn, dcn
        delta, ddelta = d * c, dd * c + d * dc
        h, dh = h * delta, dh * delta + h * ddelta
        # converged: the factor is 1 and its derivative at the rounding level (once
        # converged, an element's later factors stay at 1 up to rounding)
        done = done | (((delta - 1.0).abs() <= 2 * _EPS) & ((h * ddelta).abs() <= 4 * _EPS * (dh.abs() + h.abs())))
        if i % 4 == 0 and bool(done.all()):
            break
    return h, dh


def _igamma_parts(a, x):
    """P(a, x) (the regularized lower incomplete gamma function) and dx/da at fixed P, for 1-D
    float64 tensors of one shape."""
    p = tcore.where(x > 0, tcore.ones_like(x), tcore.zeros_like(x))
    g = tcore.zeros_like(x)
    p = tcore.where(tcore.isnan(a) | tcore.isnan(x) | ~(a > 0), tcore.full_like(x, math.nan), p)
    inner = (x > 0) & tcore.isfinite(x) & (a > 0) & tcore.isfinite(a)
    lower = inner & (x < a + 1.0)
    upper = inner & ~(x < a + 1.0)
    if bool(lower.any()):
        aa, xx = a[lower], x[lower]
        s, ds = _series(aa, xx)
        lx, psi = xx.log(), tcore.digamma(aa)
        p[lower] = (aa * lx - xx - tcore.lgamma(aa) + s.log()).exp()
        g[lower] = -xx * (s * (lx - psi) + ds)
    if bool(upper.any()):
        aa, xx = a[upper], x[upper]
        h, dh = _continued_fraction(aa, xx)
        lx, psi = xx.log(), tcore.digamma(aa)
        p[upper] = 1.0 - (aa * lx - xx - tcore.lgamma(aa)).exp() * h
        g[upper] = xx * (h * (lx - psi) + dh)
    return p, g


def _log_gamma_density(a, x):
    return tcore.xlogy(a - 1.0, x) - x - tcore.lgamma(a)


def standard_gamma_grad(alpha, x):
    """dx/dalpha of Gamma(alpha, 1) draws x (the implicit reparameterization gradient)."""
    a, xx = tcore.broadcast_tensors(alpha.detach(), x.detach())
    _, g = _igamma_parts(_flat64(a), _flat64(xx))
    return g.reshape(a.shape).to(alpha.dtype)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, alpha):
        x = standard_gamma(alpha).clamp(min=tcore.finfo(alpha.dtype).tiny)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * standard_gamma_grad(alpha, x)


def rsample_standard_gamma(alpha):
    """Gamma(alpha, 1) draws, differentiable in alpha (implicit reparameterization)."""
    return _StandardGamma.apply(alpha)


class _GammaInc(Function):
    @staticmethod
    def forward(ctx, a, x):
        p, _ = _igamma_parts(_flat64(a), _flat64(x))
        ctx.save_for_backward(a, x)
        return p.reshape(a.shape).to(a.dtype)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        a64, x64 = _flat64(a), _flat64(x)
        _, g = _igamma_parts(a64, x64)
        dens = tcore.where(x64 > 0, _log_gamma_density(a64, x64).exp(), tcore.zeros_like(x64))
        dens = tcore.where(tcore.isfinite(x64), dens, tcore.zeros_like(x64))
        da = (-dens * g).reshape(a.shape).to(a.dtype)
        dx = dens.reshape(x.shape).to(x.dtype)
        return grad * da, grad * dx


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x), differentiable in a and x."""
    a, x = tcore.broadcast_tensors(a, x)
    return _GammaInc.apply(a, x)


# --- Poisson -----------------------------------------------------------------------------------

def _poisson_small(lam):
    """Poisson(lam) draws for lam < 10: count uniforms until their product falls below e^-lam."""
    out = tcore.zeros_like(lam)
    logp = tcore.zeros_like(lam)
    todo = tcore.arange(lam.numel())
    while todo.numel():
        lp = logp[todo] + _rand(todo.numel()).log()
        logp[todo] = lp
        more = lp > -lam[todo]
        idx = todo[more]
        out[idx] = out[idx] + 1.0
        todo = idx
    return out


def _poisson_ptrs(lam):
    """Poisson(lam) draws for lam >= 10 (transformed rejection with squeeze, PTRS)."""
    slam, loglam = lam.sqrt(), lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    out = tcore.empty_like(lam)
    todo = tcore.arange(lam.numel())
    while todo.numel():
        n = todo.numel()
        l, sl, ll, bb, aa, ia, v_r = (t[todo] for t in (lam, slam, loglam, b, a, inv_alpha, vr))
        u = _rand(n) - 0.5
        v = _rand(n)
        us = 0.5 - u.abs()
        k = ((2.0 * aa / us + bb) * u + l + 0.43).floor()
        quick = (us >= 0.07) & (v <= v_r)
        bad = (k < 0) | ((us < 0.013) & (v > us))
        kk = tcore.where(k < 0, tcore.zeros_like(k), k)
        test = (v.log() + ia.log() - (aa / (us * us) + bb).log()) <= (-l + kk * ll - tcore.lgamma(kk + 1.0))
        ok = quick | (~bad & test)
        out[todo[ok]] = k[ok]
        todo = todo[~ok]
    return out


def poisson(rate):
    """Poisson(rate) draws of rate's shape and dtype (no gradient)."""
    lam = _flat64(rate)
    out = tcore.zeros_like(lam)
    valid = (lam >= 0) & tcore.isfinite(lam)
    small = valid & (lam > 0) & (lam < 10)
    large = valid & (lam >= 10)
    if bool(small.any()):
        out[small] = _poisson_small(lam[small])
    if bool(large.any()):
        out[large] = _poisson_ptrs(lam[large])
    out = tcore.where(valid, out, tcore.full_like(out, math.nan))
    return out.reshape(rate.shape).to(rate.dtype)


# --- binomial ----------------------------------------------------------------------------------

def _binomial_inversion(n, q):
    """Binomial(n, q) draws for n q < 10: successes are geometric waiting times apart."""
    out = tcore.zeros_like(n)
    pos = tcore.zeros_like(n)
    log1mq = (-q).log1p()
    todo = tcore.arange(n.numel())
    while todo.numel():
        wait = (_rand(todo.numel()).log() / log1mq[todo]).floor() + 1.0
        p = pos[todo] + wait
        pos[todo] = p
        more = p <= n[todo]
        idx = todo[more]
        out[idx] = out[idx] + 1.0
        todo = idx
    return out


def _binomial_btrs(n, q):
    """Binomial(n, q) draws for n q >= 10, q <= 1/2 (transformed rejection, BTRS)."""
    spq = (n * q * (1.0 - q)).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * q
    c = n * q + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = (q / (1.0 - q)).log()
    m = ((n + 1.0) * q).floor()
    h = tcore.lgamma(m + 1.0) + tcore.lgamma(n - m + 1.0)
    out = tcore.empty_like(n)
    todo = tcore.arange(n.numel())
    while todo.numel():
        cnt = todo.numel()
        nn, aa, bb, cc, v_r, al, lp, mm, hh = (t[todo] for t in (n, a, b, c, vr, alpha, lpq, m, h))
        u = _rand(cnt) - 0.5
        v = _rand(cnt)
        us = 0.5 - u.abs()
        k = ((2.0 * aa / us + bb) * u + cc).floor()
        inside = (k >= 0) & (k <= nn)
        quick = (us >= 0.07) & (v <= v_r)
        kk = k.clamp(min=0.0)
        kk = tcore.where(kk > nn, nn, kk)
        lhs = (v * al / (aa / (us * us) + bb)).log()
        rhs = hh - tcore.lgamma(kk + 1.0) - tcore.lgamma(nn - kk + 1.0) + (kk - mm) * lp
        ok = inside & (quick | (lhs <= rhs))
        out[todo[ok]] = k[ok]
        todo = todo[~ok]
    return out


def binomial(count, prob):
    """Binomial(count, prob) draws (count, prob of one shape; no gradient)."""
    n, p = _flat64(count), _flat64(prob)
    valid = (n >= 0) & tcore.isfinite(n) & (p >= 0) & (p <= 1)
    n = tcore.where(valid, n, tcore.zeros_like(n))
    p = tcore.where(valid, p, tcore.zeros_like(p))
    flip = p > 0.5
    q = tcore.where(flip, 1.0 - p, p)
    out = tcore.zeros_like(n)
    active = (n > 0) & (q > 0)
    small = active & (n * q < 10)
    large = active & ~(n * q < 10)
    if bool(small.any()):
        out[small] = _binomial_inversion(n[small], q[small])
    if bool(large.any()):
        out[large] = _binomial_btrs(n[large], q[large])
    out = tcore.where(flip, n - out, out)
    out = tcore.where(valid, out, tcore.full_like(out, math.nan))
    return out.reshape(count.shape).to(prob.dtype)
