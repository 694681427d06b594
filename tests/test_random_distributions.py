"""torch's random fills beyond uniform_/normal_/random_: bernoulli (a probability, a tensor of them,
or self's), exponential_, geometric_, log_normal_, cauchy_ and their functional forms. Their
draws are tcore's own (torch's generator is not reproduced), so the tests check the laws: means,
variances, quantiles against the distributions' within several standard errors of 400,000
draws, supports, dtypes, seeding, gradients (zero, as torch's) and torch's argument errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import tcore

N = 400_000


def _draws(fill, dtype=tcore.float64) -> np.ndarray:
    tcore.manual_seed(1)
    return fill(tcore.empty(N, dtype=dtype)).double().numpy()


def test_exponential():
    x = _draws(lambda t: t.exponential_(2.0))
    assert x.min() >= 0 and abs(x.mean() - 0.5) < 5 * 0.5 / math.sqrt(N)
    assert abs(np.median(x) - math.log(2) / 2) < 0.005
    assert x.max() > 5  # (a 53-bit draw: the tail goes on, P(x > 5) = e^-10)
    assert tcore.exponential(tcore.zeros(3), 1.0).shape == (3,)


def test_geometric_counts_trials():
    x = _draws(lambda t: t.geometric_(0.3), tcore.int64)
    assert x.min() == 1 and abs(x.mean() - 1 / 0.3) < 5 * math.sqrt(0.7) / 0.3 / math.sqrt(N)
    assert abs((x == 1).mean() - 0.3) < 0.005 and abs((x == 2).mean() - 0.21) < 0.005


def test_log_normal_and_cauchy():
    x = np.log(_draws(lambda t: t.log_normal_(0.5, 0.25)))
    assert abs(x.mean() - 0.5) < 5 * 0.25 / math.sqrt(N) and abs(x.std() - 0.25) < 0.002
    c = _draws(lambda t: t.cauchy_(1.0, 2.0))
    assert abs(np.median(c) - 1.0) < 0.02
    assert abs(np.percentile(c, 75) - np.percentile(c, 25) - 4.0) < 0.05  # (quartiles at median -+ sigma)


@pytest.mark.parametrize("dtype", [tcore.float32, tcore.float16, tcore.bfloat16, tcore.int64, tcore.bool])
def test_bernoulli_of_a_probability(dtype):
    x = _draws(lambda t: t.bernoulli_(0.3), dtype)
    assert set(np.unique(x)) <= {0.0, 1.0} and abs(x.mean() - 0.3) < 5 * math.sqrt(0.21 / N)
    assert _draws(lambda t: t.bernoulli_(0.0)).max() == 0 and _draws(lambda t: t.bernoulli_(1.0)).min() == 1


def test_bernoulli_of_a_tensor_of_probabilities():
    tcore.manual_seed(2)
    p = tcore.rand(1000, dtype=tcore.float64)
    draws = np.stack([tcore.bernoulli(p).numpy() for _ in range(400)])
    assert np.abs(draws.mean(0) - p.numpy()).max() < 5 * 0.5 / math.sqrt(400)
    assert tcore.zeros(2, 3).bernoulli_(tcore.tensor([0.0, 1.0, 1.0])).tolist() == [[0, 1, 1], [0, 1, 1]]
    assert tcore.bernoulli(tcore.zeros(4), tcore.ones(4)).tolist() == [1, 1, 1, 1]
    assert tcore.tensor([1.0, 1.0]).bernoulli(0.0).tolist() == [0.0, 0.0]


def test_seeded_and_not_differentiable():
    tcore.manual_seed(3)
    a = tcore.empty(6).exponential_()
    tcore.manual_seed(3)
    assert tcore.empty(6).exponential_().tolist() == a.tolist()
    x = tcore.rand(5, requires_grad=True)
    y = tcore.bernoulli(x)
    y.sum().backward()
    assert x.grad.tolist() == [0.0] * 5  # (torch's: a zero gradient)


ERRORS = [
    (lambda: tcore.zeros(3).exponential_(0), "exponential_ expects lambda > 0.0, but found lambda=0"),
    (lambda: tcore.zeros(3, dtype=tcore.int64).exponential_(), "Exponential distribution is a continuous"),
    (lambda: tcore.zeros(3).geometric_(1), r"geometric_ expects p to be in \(0, 1\), but got p=1"),
    (lambda: tcore.zeros(3).log_normal_(1, 0), "log_normal_ expects std > 0.0, but found std=0"),
    (lambda: tcore.zeros(3).cauchy_(0, 0), "cauchy_ expects sigma > 0.0, but found sigma=0"),
    (lambda: tcore.zeros(3).bernoulli_(1.5), r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5"),
    (lambda: tcore.bernoulli(tcore.tensor([0.5, 2.0])), "Expected p_in >= 0 && p_in <= 1 to be true"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_argument_errors_as_torch(i):
    call, message = ERRORS[i]
    with pytest.raises(RuntimeError, match=message):
        call()
