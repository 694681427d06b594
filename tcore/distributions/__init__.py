"""tcore.distributions: torch.distributions' core, over tcore's tensors, autograd and RNG.

Distributions: Bernoulli, Beta, Binomial, Categorical, Chi2, Dirichlet, Exponential, Gamma,
Geometric, Independent, Laplace, LogNormal, MixtureSameFamily, MultivariateNormal, Normal,
OneHotCategorical, OneHotCategoricalStraightThrough, Poisson, RelaxedBernoulli
(LogitRelaxedBernoulli), RelaxedOneHotCategorical (ExpRelaxedCategorical), StudentT,
TransformedDistribution, Uniform; constraints; transforms; kl_divergence / register_kl.

Same constructors, shapes, validation (and its messages), properties and formulas as torch's;
samples come from tcore's generator (tcore.manual_seed), so they are not torch's numbers.
Gamma, Beta, Dirichlet, Chi2 and StudentT are reparameterized through the implicit gradient of
the gamma draw (tcore/distributions/_random.py)."""
from __future__ import annotations

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Chi2, Gamma
from .geometric import Geometric
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from .relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform,
                         PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, SoftplusTransform,
                         TanhTransform, Transform, identity_transform)
from .uniform import Uniform

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Chi2",
           "ComposeTransform", "Dirichlet", "Distribution", "ExpRelaxedCategorical", "ExpTransform", "Exponential",
           "ExponentialFamily", "Gamma", "Geometric", "Independent", "IndependentTransform", "Laplace", "LogNormal",
           "LogitRelaxedBernoulli", "MixtureSameFamily", "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Poisson", "PowerTransform", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform",
           "StudentT", "TanhTransform", "Transform", "TransformedDistribution", "Uniform", "constraints",
           "identity_transform", "kl_divergence", "register_kl", "transforms"]
