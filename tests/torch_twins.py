"""Shared by the tests that compare a tcore module with torch's: torch's parameter values
copied into tcore's module (same names, order and shapes asserted)."""
from __future__ import annotations

import tcore


def copy_parameters(torch_module, tcore_module) -> tuple[dict, dict]:
    """(torch's named parameters, tcore's), tcore's now holding torch's values."""
    t_params, c_params = dict(torch_module.named_parameters()), dict(tcore_module.named_parameters())
    assert list(t_params) == list(c_params)
    with tcore.no_grad():
        for name, p in t_params.items():
            assert tuple(c_params[name].shape) == tuple(p.shape), name
            c_params[name].copy_(tcore.tensor(p.detach().numpy()))
    return t_params, c_params
