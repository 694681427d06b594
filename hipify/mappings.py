"""The CUDA -> HIP tables of mappings.yaml, as one lookup object."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

DATA = Path(__file__).with_name("mappings.yaml")


@dataclass(frozen=True)
class Mappings:
    headers: dict[str, str]
    exact: dict[str, str]
    prefixes: tuple[tuple[str, str], ...]  # longest first
    unsupported: frozenset[str]
    cuda_like: re.Pattern
    digest: str  # of the data: part of every cached translation's key

    def identifier(self, name: str) -> str | None:
        """The HIP name, or None when there is none (unknown or unsupported)."""
        hit = self.exact.get(name)
        if hit is not None:
            return hit
        if name in self.unsupported:
            return None
        for prefix, replacement in self.prefixes:
            if name.startswith(prefix) and _boundary(name, prefix):
                return replacement + name[len(prefix):]
        return None

    def looks_like_cuda(self, name: str) -> bool:
        return self.cuda_like.match(name) is not None


def _boundary(name: str, prefix: str) -> bool:
    """cudaMalloc matches 'cuda' but cuda_kernel (a user's name) does not; 'CUDA_' ends in _."""
    if prefix.endswith("_"):
        return len(name) > len(prefix)
    return len(name) > len(prefix) and (name[len(prefix)].isupper() or name[len(prefix)].isdigit())


CUDA_MARKS = ("cu", "CU", "nv")


@lru_cache(maxsize=None)
def load(path: str = str(DATA)) -> Mappings:
    raw = Path(path).read_bytes()
    data = yaml.safe_load(raw)
    prefixes = sorted(data["prefixes"].items(), key=lambda kv: -len(kv[0]))
    # the translator only looks up identifiers that hold one of these (translate._TOKEN)
    blind = [n for n in [*data["exact"], *data["prefixes"]] if not any(s in n for s in CUDA_MARKS)]
    if blind:
        raise ValueError(f"{path}: CUDA names without {'/'.join(CUDA_MARKS)} would never be looked up: {blind[:5]}")
    return Mappings(
        headers=dict(data["headers"]),
        exact=dict(data["exact"]),
        prefixes=tuple(prefixes),
        unsupported=frozenset(data.get("unsupported", [])),
        cuda_like=re.compile("|".join(f"(?:{p})" for p in data.get("cuda_like", [])) or "(?!)"),
        digest=hashlib.sha1(raw).hexdigest(),
    )
