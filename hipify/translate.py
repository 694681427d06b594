"""Translating one CUDA source to HIP: one pass over the tokens, one dictionary lookup
per identifier. Comments and string literals are copied as they are; #include lines
are rewritten through the header table (and to the translated names of project
headers); kernel launches stay <<<...>>> unless launch_ggl asks for hipLaunchKernelGGL.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from .mappings import Mappings

# Identifiers are matched only when they hold "cu", "CU" or "nv", as every CUDA name does
# (mappings.yaml is checked for it): the others never reach Python code.
_TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<include>^[ \t]*\#[ \t]*include[ \t]*(?:<[^>\n]*>|"[^"\n]*"))
  | (?P<ident>(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]*(?:cu|CU|nv))[A-Za-z_][A-Za-z0-9_]*)
  | (?P<launch><<<)
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)
_INCLUDE = re.compile(r'(?P<head>^[ \t]*#[ \t]*include[ \t]*)(?P<open>[<"])(?P<path>[^>"]*)(?P<close>[>"])')


_MISS = object()
_CACHES: dict[str, dict[str, str | None]] = {}  # per mappings: identifier -> its HIP name


@dataclass
class Result:
    text: str
    replaced: Counter = field(default_factory=Counter)  # cuda name -> times
    unsupported: Counter = field(default_factory=Counter)  # cuda-looking names with no mapping

    @property
    def changed(self) -> bool:
        return bool(self.replaced)


def translate(source: str, mappings: Mappings, include_map: Callable[[str], str | None] = lambda p: None,
              launch_ggl: bool = False) -> Result:
    """include_map(path) gives the translated name of a project header (or None)."""
    out: list[str] = []
    result = Result("")
    cache = _CACHES.setdefault(mappings.digest, {})
    pos = 0
    for m in _TOKEN.finditer(source):
        kind = m.lastgroup
        if kind in ("comment", "string") or kind == "delim":
            continue
        if kind == "ident":
            name = m.group()
            new = cache.get(name, _MISS)
            if new is _MISS:
                new = cache[name] = mappings.identifier(name)
            if new is None:
                if mappings.looks_like_cuda(name) and name not in mappings.exact.values():
                    result.unsupported[name] += 1
                continue
            if new != name:
                out.append(source[pos:m.start()])
                out.append(new)
                pos = m.end()
                result.replaced[name] += 1
        elif kind == "include":
            inc = _INCLUDE.match(m.group())
            path = inc.group("path")
            new = mappings.headers.get(path) or include_map(path)
            if new is not None and new != path:
                out.append(source[pos:m.start()])
                out.append(f"{inc.group('head')}{inc.group('open')}{new}{inc.group('close')}")
                pos = m.end()
                result.replaced[path] += 1
    out.append(source[pos:])
    text = "".join(out)
    if launch_ggl and "<<<" in text:
        text, n = rewrite_launches(text)
        if n:
            result.replaced["<<<>>>"] += n
    result.text = text
    return result


_LAUNCH = re.compile(r"(?P<kernel>[A-Za-z_][\w:]*(?:\s*<[^<>;]*>)?)\s*<<<(?P<config>.*?)>>>\s*\(", re.DOTALL)


def rewrite_launches(text: str) -> tuple[str, int]:
    """kernel<<<grid, block, shmem, stream>>>(args) -> hipLaunchKernelGGL(kernel, grid, block, shmem, stream, args)."""
    out, pos, count = [], 0, 0
    for m in _LAUNCH.finditer(text):
        if m.start() < pos:
            continue
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        args = text[m.end():i - 1]
        config = [c.strip() for c in _split_top(m.group("config"))]
        config += ["0", "0"][: max(0, 4 - len(config))]
        kernel = m.group("kernel").strip()
        if "<" in kernel:
            kernel = f"({kernel})"
        call = ", ".join([kernel, *config] + ([args.strip()] if args.strip() else []))
        out.append(text[pos:m.start()])
        out.append(f"hipLaunchKernelGGL({call})")
        pos, count = i, count + 1
    out.append(text[pos:])
    return "".join(out), count


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p for p in parts if p.strip()]
