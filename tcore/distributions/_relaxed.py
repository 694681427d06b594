"""The relaxed distributions' common part (RelaxedBernoulli, RelaxedOneHotCategorical)."""
from __future__ import annotations

__all__ = ["RelaxedParams"]


class RelaxedParams:
    """A mixin (before the TransformedDistribution base) for the transform of a relaxed
    distribution: temperature, logits and probs are those of its base distribution."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
