"""Translating one CUDA source to HIP: one pass over the tokens, one dictionary lookup per
identifier, no file I/O. The rules:

- identifiers: the CUDA names of the data (mappings.py) become their HIP names; a name with
  no equivalent for the target stays and is reported with its line and column;
- comments and string literals are copied as they are, and so is code under `#if 0`;
- #include lines: CUDA headers become the headers the ROCm packages install, project
  headers their translated names (include_map);
- device built-ins stay as HIP spells them (threadIdx, blockDim.z: nothing to do);
- a .cu file (and a .cuh using kernel syntax) that does not include the runtime gets
  `#include "hip/hip_runtime.h"` (nvcc includes it implicitly, hipcc does not);
- kernel launches stay <<<...>>> unless launch_ggl asks for
  `hipLaunchKernelGGL(k, dim3(g), dim3(b), shmem, stream, args)`, found in the same
  single pass (linear time, never inside comments or strings).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from .mappings import Mappings

_IDENT_START = r"(?<![A-Za-z0-9_])"
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_COMMENT = r"//[^\n]*|/\*.*?\*/"
_STRING = r"""R"(?P<delim>[^(\s"]{0,16})\(.*?\)(?P=delim)"|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"""


def _token_pattern(unmarked: frozenset[str]) -> re.Pattern:
    """Identifiers are looked up only when they hold cu/CU/nv/NV or start with '_' (every CUDA
    name but a few: those are listed, from the data)."""
    extra = "|".join(sorted(map(re.escape, unmarked), key=len, reverse=True))
    ident = rf"{_IDENT_START}(?:(?=[A-Za-z0-9_]*(?:cu|CU|nv|NV)|_){_IDENT}" + (
        rf"|(?:{extra})(?![A-Za-z0-9_])" if extra else "") + ")"
    return re.compile(
        rf"""
        (?P<comment>{_COMMENT})
      | (?P<string>{_STRING})
      | (?P<directive>^[ \t]*\#[ \t]*(?:include[ \t]*(?:<[^>\n]*>|"[^"\n]*")|if[ \t]+0[ \t]*(?=$|//|/\*)))
      | (?P<ident>{ident})
      | (?P<launch><<<)
        """,
        re.VERBOSE | re.DOTALL | re.MULTILINE,
    )


_PATTERNS: dict[frozenset, re.Pattern] = {}
_CACHES: dict[str, dict[str, str | None]] = {}  # per mappings: identifier -> its HIP name (None: none)
_MISS = object()
_INCLUDE = re.compile(r'(?P<head>[ \t]*#[ \t]*include[ \t]*)(?P<open>[<"])(?P<path>[^>"]*)(?P<close>[>"])')
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", re.MULTILINE)
# inside a launch: parentheses, and what may hold them without counting (strings, comments)
_NESTING = re.compile(rf"{_COMMENT}|{_STRING}|[()\[\]{{}}]|>>>", re.DOTALL)
_COMMA = re.compile(rf"{_COMMENT}|{_STRING}|[()\[\]{{}},]", re.DOTALL)
_KERNEL_SYNTAX = re.compile(r"__global__|__device__|__shared__|__constant__|threadIdx|blockIdx|blockDim|gridDim|<<<"
                            r"|__syncthreads")
_RUNTIME_INCLUDED = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]hip/hip_runtime\.h[>"]', re.MULTILINE)
_PREAMBLE = re.compile(rf"(?:\s+|{_COMMENT})*(?:[ \t]*#[ \t]*pragma[ \t]+once[^\n]*\n)?", re.DOTALL)
RUNTIME_INCLUDE = '#include "hip/hip_runtime.h"\n'


@dataclass
class Warning_:
    line: int
    col: int
    name: str
    reason: str

    def format(self, path: str) -> str:
        return f"{path}:{self.line}:{self.col}: warning: {self.name} has {self.reason}"


@dataclass
class Result:
    text: str
    replaced: Counter = field(default_factory=Counter)  # cuda name -> times
    unsupported: Counter = field(default_factory=Counter)  # CUDA-looking names the data does not know
    warnings: list[Warning_] = field(default_factory=list)  # first use of each name with no equivalent

    @property
    def changed(self) -> bool:
        return bool(self.replaced)


def translate(source: str, mappings: Mappings, include_map: Callable[[str], str | None] = lambda p: None,
              launch_ggl: bool = False, runtime_header: str = "never") -> Result:
    """include_map(path) gives the translated name of a project header (or None).
    runtime_header: "always" (a .cu), "kernels" (a .cuh: when it uses kernel syntax) or "never"."""
    pattern = _PATTERNS.get(mappings.unmarked)
    if pattern is None:
        pattern = _PATTERNS[mappings.unmarked] = _token_pattern(
            frozenset(n for n in mappings.unmarked if n in mappings.identifiers or n in mappings.missing))
    t = _Translator(source, mappings, include_map, launch_ggl, pattern)
    t.span(0, len(source))
    text = "".join(t.out)
    result = t.result
    if runtime_header != "never" and not _RUNTIME_INCLUDED.search(text) and (
            runtime_header == "always" or _KERNEL_SYNTAX.search(text)):
        at = _PREAMBLE.match(text).end()
        text = text[:at] + RUNTIME_INCLUDE + text[at:]
        result.replaced["<implicit cuda_runtime.h>"] += 1
    result.text = text
    return result


class _Translator:
    def __init__(self, source: str, mappings: Mappings, include_map, launch_ggl: bool, pattern: re.Pattern):
        self.src, self.m, self.include_map, self.launch_ggl, self.pattern = source, mappings, include_map, launch_ggl, pattern
        self.out: list[str] = []
        self.result = Result("")
        self.cache = _CACHES.setdefault(mappings.digest, {})
        self.warned: set[str] = set()
        self._line_pos, self._line = 0, 1

    def _where(self, pos: int) -> tuple[int, int]:
        if pos < self._line_pos:
            self._line_pos, self._line = 0, 1
        self._line += self.src.count("\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line, pos - self.src.rfind("\n", 0, pos)

    def _warn(self, pos: int, name: str, reason: str) -> None:
        if name not in self.warned:
            self.warned.add(name)
            self.result.warnings.append(Warning_(*self._where(pos), name, reason))

    def span(self, start: int, end: int) -> None:
        """Translates src[start:end] onto out."""
        src, out, pos = self.src, self.out, start
        search = self.pattern.search
        while True:
            m = search(src, pos, end)
            if m is None:
                break
            kind = m.lastgroup
            if kind == "ident":
                name = m.group()
                new = self.cache.get(name, _MISS)
                if new is _MISS:
                    new = self.cache[name] = self.m.identifier(name)
                if new is not None:
                    out.append(src[pos:m.start()])
                    out.append(new)
                    self.result.replaced[name] += 1
                    pos = m.end()
                    continue
                if name in self.m.missing:
                    self._warn(m.start(), name, self.m.missing[name])
                elif self.m.looks_like_cuda(name):
                    self.result.unsupported[name] += 1
                out.append(src[pos:m.end()])
                pos = m.end()
            elif kind == "directive":
                if m.group().rstrip().endswith("0"):  # #if 0: copied up to its #else, #elif or #endif
                    stop = self._end_of_if0(m.end(), end)
                    out.append(src[pos:stop])
                    pos = stop
                else:
                    out.append(src[pos:m.start()])
                    out.append(self._include(m))
                    pos = m.end()
            elif kind == "launch" and self.launch_ggl:
                done = self._launch(pos, m.start(), end)
                if done is None:
                    out.append(src[pos:m.end()])
                    pos = m.end()
                else:
                    pos = done
            else:  # comment, string, a launch kept as it is
                out.append(src[pos:m.end()])
                pos = m.end()
        out.append(src[pos:end])

    def _end_of_if0(self, start: int, end: int) -> int:
        depth = 0
        for c in _CONDITIONAL.finditer(self.src, start, end):
            word = c.group(1)
            if word.startswith("if"):
                depth += 1
            elif word == "endif" and depth:
                depth -= 1
            elif depth == 0:
                return c.start()
        return end

    def _include(self, m: re.Match) -> str:
        inc = _INCLUDE.match(m.group())
        path = inc.group("path")
        new, known = self.m.header(path)
        if known and new is None:
            self._warn(m.start() + inc.start("path"), path, f"no HIP equivalent (HIP {self.m.target.label})")
        if new is None:
            new = self.include_map(path)
        if new is None or new == path:
            return m.group()
        self.result.replaced[path] += 1
        return f"{inc.group('head')}{inc.group('open')}{new}{inc.group('close')}"

    def _launch(self, pos: int, at: int, end: int) -> int | None:
        """kernel<<<g, b, s, st>>>(args) -> hipLaunchKernelGGL(kernel, dim3(g), dim3(b), s, st, args); returns
        where the call ends, or None (left as it is) when the launch is not one this can read."""
        src = self.src
        k = _kernel_start(src, at, pos)
        if k is None:
            return None
        close = _matching(src, at + 3, end, ">>>")
        if close is None:
            return None
        paren = close + 3
        while paren < end and src[paren] in " \t\r\n":
            paren += 1
        if paren >= end or src[paren] != "(":
            return None
        last = _matching(src, paren + 1, end, ")")
        if last is None:
            return None
        config = _split_top(src, at + 3, close)
        if not 2 <= len(config) <= 4:
            return None
        kernel = src[k:at].strip()
        self.out.append(src[pos:k])
        self.out.append("hipLaunchKernelGGL(" + (f"HIP_KERNEL_NAME({kernel})" if "<" in kernel else kernel))
        for i, (a, b) in enumerate(config):
            self.out.append(", dim3(" if i < 2 else ", ")
            self.span(a, b)
            self.out.append(")" if i < 2 else "")
        self.out.append(", 0" * (4 - len(config)))
        if src[paren + 1:last].strip():
            self.out.append(", ")
            a, b = paren + 1, last
            while src[a] in " \t\r\n":
                a += 1
            self.span(a, b)
        self.out.append(")")
        self.result.replaced["<<<>>>"] += 1
        return last + 1


def _kernel_start(src: str, at: int, floor: int) -> int | None:
    """Where the kernel expression before <<< begins (a name, ns::name, name<T, U>), not before floor."""
    floor = max(floor, at - 4096)  # a kernel expression is short: bounded, so a file stays linear
    i = at
    while i > floor and src[i - 1] in " \t\r\n":
        i -= 1
    if i > floor and src[i - 1] == ">":  # template arguments
        depth = 0
        while i > floor:
            i -= 1
            ch = src[i]
            if ch == ">":
                depth += 1
            elif ch == "<":
                depth -= 1
                if depth == 0:
                    break
            elif ch in ";{}":
                return None
        else:
            return None
        while i > floor and src[i - 1] in " \t":
            i -= 1
    j = i
    while j > floor and (src[j - 1].isalnum() or src[j - 1] in "_:"):
        j -= 1
    if j == i or not (src[j].isalpha() or src[j] in "_:"):
        return None
    return j


def _matching(src: str, start: int, end: int, closer: str) -> int | None:
    """The position of closer at nesting depth 0 from start (strings and comments skipped)."""
    depth = 0
    for m in _NESTING.finditer(src, start, end):
        tok = m.group()
        if tok in ("(", "[", "{"):
            depth += 1
        elif tok in (")", "]", "}"):
            if depth == 0:
                return m.start() if tok == closer else None
            depth -= 1
        elif tok == ">>>" and closer == ">>>" and depth == 0:
            return m.start()
    return None


def _split_top(src: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of the comma-separated parts of src[start:end] at nesting depth 0, stripped."""
    parts, depth, a = [], 0, start
    for m in _COMMA.finditer(src, start, end):
        tok = m.group()
        if tok in ("(", "[", "{"):
            depth += 1
        elif tok in (")", "]", "}"):
            depth -= 1
        elif tok == "," and depth == 0:
            parts.append((a, m.start()))
            a = m.end()
    parts.append((a, end))
    stripped = []
    for a, b in parts:
        while a < b and src[a] in " \t\r\n":
            a += 1
        while b > a and src[b - 1] in " \t\r\n":
            b -= 1
        if a < b:
            stripped.append((a, b))
    return stripped
