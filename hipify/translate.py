"""Translating one CUDA source to HIP, no file I/O. How: a word filter (the source's distinct words,
split at memory speed, intersected with the data's CUDA names) says which names occur at all; a
source with none of them, no include to change and no launch to rewrite is returned as it is.
Otherwise one pass takes, in order, the structure (comments, strings, directives, launches: one
regular expression whose alternatives all begin with a literal character) and the occurrences of
the names present (str.find), one dictionary lookup each. The rules:

- identifiers: the CUDA names of the data (mappings.py) become their HIP names; a name with
  no equivalent for the target stays and is reported with its line and column;
- calls that the target HIP lacks but can be written with what it has (rules.py: the warp
  `_sync` intrinsics, __syncwarp, bfloat16, ...) are rewritten with their arguments; helpers
  some of them need are defined once at the top of the file;
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

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from .mappings import Mappings
from .rules import HELPERS, RULES, CallRule

_WORD = "A-Za-z0-9_"
_COMMENT = r"//[^\n]*|/\*.*?\*/"
_STRING = r"""R"(?P<delim>[^(\s"]{0,16})\(.*?\)(?P=delim)"|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"""
# What the scan stops at besides the names (found with str.find): every alternative begins with a literal
# character, so that the regular expression engine skips, in C, every position that cannot start one.
_STRUCTURE = "|".join([
    r"/(?:/[^\n]*|\*[^*]*\*+(?:[^/*][^*]*\*+)*/)",  # comments
    r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"',  # string literals
    r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'",  # character literals
    r'R"(?P<delim>[^(\s"]{0,16})\(.*?\)(?P=delim)"',  # raw strings
    r'\#[ \t]*(?:(?P<include>include)[ \t]*(?:<[^>\n]*>|"[^"\n]*")|if[ \t]+0[ \t]*(?=$|//|/\*))',  # at line start
    r"<<<",
])
_STRUCTURE_RE = re.compile(_STRUCTURE, re.DOTALL | re.MULTILINE)
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NOT_WORD = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == ord("_")) else 32 for c in range(256))
_INCLUDE_PATH = re.compile(r'\#[ \t]*include[ \t]*[<"]([^>"\n]*)[>"]')
_TEMPLATE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a call rule's name that is being defined or declared, not called: `#define NAME(`, `#undef NAME`,
# `defined(NAME)`, `int NAME(unsigned m, ...)`, `ns::NAME` (the project's own polyfill stays as it is)
_DEFINING = re.compile(r"(?:^[ \t]*\#[ \t]*(?:define|undef|ifdef|ifndef)[ \t]+|\bdefined[ \t]*\(?[ \t]*"
                       r"|(?<![A-Za-z0-9_])(?P<word>[A-Za-z_][A-Za-z0-9_]*)\s*|::\s*)\Z", re.MULTILINE)
_CALLING_WORDS = frozenset(("return", "case", "else", "do", "throw", "co_return", "co_yield", "co_await", "sizeof",
                            "decltype", "typeid", "noexcept", "alignof", "new", "delete", "and", "or", "not"))
_SCANNERS: dict[str, "_Scanner"] = {}  # per mappings digest
_INCLUDE = re.compile(r'(?P<head>\#[ \t]*include[ \t]*)(?P<open>[<"])(?P<path>[^>"]*)(?P<close>[>"])')
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
    helpers: set[str] = field(default_factory=set)  # the rules.HELPERS blocks that the replacements call
    # a CUDA name was replaced: a header that names CUDA's API (cudaStream_t, ...), as any .cu that includes
    # it may after nvcc's implicit runtime include, needs the HIP runtime as much as a kernel does
    api: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.replaced)


class _Scanner:
    """What translating for one mappings needs, built once: the names to look for (as bytes, for the
    word filter) and the call rules that apply, with their templates translated."""

    def __init__(self, m: Mappings):
        self.m = m
        self.rules: dict[str, tuple[CallRule, str]] = {
            name: (rule, _TEMPLATE_NAME.sub(lambda w: m.identifiers.get(w.group(), w.group()), rule.template))
            for name, rule in RULES.items()
            if (rule.always or name not in m.identifiers) and rule.applies(m.target.hip_version)}
        self.names = frozenset(n.encode() for n in (*m.identifiers, *m.missing, *self.rules))
        self.cuda_like = re.compile(m.cuda_like.pattern.encode())
        prefixes = [re.match(r"\(\?:([A-Za-z0-9_]{2})(?![?*{])", p) for p in m.cuda_like.pattern.split("|")]
        self.prefixes = frozenset(p.group(1).encode() for p in prefixes) if all(prefixes) else None

    def names_in(self, source: str) -> list[str]:
        """The names of the data (and unknown CUDA-looking ones) that occur in source as words,
        anywhere (the scan then skips those in comments, strings and #if 0)."""
        words = set(source.encode("utf-8", "surrogateescape").translate(_NOT_WORD).split())
        found = words & self.names
        match, hip, prefixes = self.cuda_like.match, self.m.hip_names, self.prefixes
        unknown = [w for w in words - found if (prefixes is None or w[:2] in prefixes) and match(w)
                   and w.decode() not in hip]
        return [w.decode("utf-8", "surrogateescape") for w in (*found, *unknown)]

    def includes_change(self, source: str, include_map) -> bool:
        for path in _INCLUDE_PATH.findall(source):
            if self.m.header(path)[1] or include_map(path) is not None:
                return True
        return False


def _scanner(m: Mappings) -> _Scanner:
    s = _SCANNERS.get(m.digest)
    if s is None:
        s = _SCANNERS[m.digest] = _Scanner(m)
    return s


def _occurrences(src: str, names: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, name) of every whole-word occurrence of the names, in order (str.find: memory speed)."""
    found, find, n = [], src.find, len(src)
    for name in names:
        size = len(name)
        i = find(name)
        while i >= 0:
            j = i + size
            if (i == 0 or src[i - 1] not in _WORD_CHARS) and (j == n or src[j] not in _WORD_CHARS):
                found.append((i, j, name))
            i = find(name, j)
    found.sort()
    return found


def translate(source: str, mappings: Mappings, include_map: Callable[[str], str | None] = lambda p: None,
              launch_ggl: bool = False, runtime_header: str = "never") -> Result:
    """include_map(path) gives the translated name of a project header (or None).
    runtime_header: "always" (a .cu), "kernels" (a .cuh: when it uses kernel syntax or CUDA's API) or "never".
    A source with none of the data's names, no include to change and no launch to rewrite is not
    scanned at all (the word filter decides, at memory speed)."""
    scanner = _scanner(mappings)
    names = scanner.names_in(source)
    if names or (launch_ggl and "<<<" in source) or scanner.includes_change(source, include_map):
        t = _Translator(source, scanner, include_map, launch_ggl, _occurrences(source, names))
        t.span(0, len(source))
        text, result = "".join(t.out), t.result
    else:
        text, result = source, Result("")
    if result.helpers:
        at = _PREAMBLE.match(text).end()
        blocks = "".join(code for name, code in HELPERS.items() if name in result.helpers)
        text = text[:at] + RUNTIME_INCLUDE + blocks + text[at:]
    if runtime_header != "never" and not ("hip/hip_runtime.h" in text and _RUNTIME_INCLUDED.search(text)) and (
            runtime_header == "always" or result.api or _KERNEL_SYNTAX.search(text)):
        at = _PREAMBLE.match(text).end()
        text = text[:at] + RUNTIME_INCLUDE + text[at:]
        result.replaced["<implicit cuda_runtime.h>"] += 1
    result.text = text
    return result


class _Translator:
    def __init__(self, source: str, scanner: _Scanner, include_map, launch_ggl: bool, occurrences: list):
        self.src, self.s, self.m = source, scanner, scanner.m
        self.include_map, self.launch_ggl, self.occ = include_map, launch_ggl, occurrences
        self.out: list[str] = []
        self.result = Result("")
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
        """Translates src[start:end] onto out: the structure (comments, strings, directives, launches)
        and the occurrences of names, taken in the order they start; what is not replaced is copied."""
        src, out, occ, pos, at = self.src, self.out, self.occ, start, start
        search, identifiers = _STRUCTURE_RE.search, self.m.identifiers
        k = bisect.bisect_left(occ, (start,))
        struct = search(src, at, end)
        while True:
            if struct is not None and struct.start() < at:
                struct = search(src, at, end)
            while k < len(occ) and occ[k][0] < at:
                k += 1
            name_at = occ[k][0] if k < len(occ) and occ[k][1] <= end else end
            if struct is None and name_at >= end:
                break
            if struct is not None and struct.start() < name_at:
                s, e = struct.span()
                first = src[s]
                at = e
                if first == "#":
                    line = src.rfind("\n", 0, s) + 1
                    if src[line:s].strip(" \t"):  # not a directive ('#' in a macro body)
                        at = s + 1
                    elif struct.group("include") is None:  # #if 0: copied up to its #else, #elif or #endif
                        at = self._end_of_if0(e, end)
                    else:
                        out.append(src[pos:s])
                        out.append(self._include(struct))
                        pos = e
                elif first == "<" and self.launch_ggl:
                    done = self._launch(pos, s, end)
                    if done is not None:
                        pos = at = done
                continue  # comments, strings, launches kept: copied with what follows
            s, e, name = occ[k]
            k += 1
            at = e
            if name in self.s.rules:
                done = self._call(pos, s, e, end, name)
                if done is not None:
                    pos = at = done
                    continue
                if name not in identifiers:  # reported by _call, or the project's own definition
                    continue
            new = identifiers.get(name)
            if new is not None:
                out.append(src[pos:s])
                out.append(new)
                self.result.replaced[name] += 1
                self.result.api = True
                pos = e
            elif name in self.m.missing:
                self._warn(s, name, self.m.missing[name])
            else:
                self.result.unsupported[name] += 1
        out.append(src[pos:end])

    def _call(self, pos: int, s: int, e: int, end: int, name: str) -> int | None:
        """A call rule (rules.py) on name(args) at s; where the call ends, or None (left, reported)."""
        rule, template = self.s.rules[name]
        if self._defining(s, rule.min_args is not None):
            return None  # the project defines or declares it: left as it is
        if rule.min_args is None:  # a name rule
            self.out.append(self.src[pos:s])
            self.out.append(template)
            self.result.replaced[name] += 1
            self.result.api = True
            if rule.helper:
                self.result.helpers.add(rule.helper)
            return e
        src, paren = self.src, e
        while paren < end and src[paren] in " \t\r\n":
            paren += 1
        last = _matching(src, paren + 1, end, ")") if paren < end and src[paren] == "(" else None
        args = _split_top(src, paren + 1, last) if last is not None else []
        if last is None or not rule.min_args <= len(args) <= rule.max_args:
            if name in self.m.identifiers:  # the plain mapping is what is left
                return None
            self._warn(s, name, f"no HIP equivalent (HIP {self.m.target.label}) and is not a call with "
                                f"{rule.min_args}-{rule.max_args} arguments here: left as it is")
            return None
        texts = []
        for i, (a, b) in enumerate(args):  # the arguments that the replacement keeps, translated
            if not ("{rest0}" in template or f"{{{i}}}" in template or (i and "{rest}" in template)):
                texts.append("")
                continue
            mark = len(self.out)
            self.span(a, b)
            texts.append("".join(self.out[mark:]))
            del self.out[mark:]
        self.out.append(src[pos:s])
        self.out.append(template.format(*texts, rest=", ".join(texts[1:]), rest0=", ".join(texts)))
        self.result.replaced[name] += 1
        self.result.api = True
        if rule.helper:
            self.result.helpers.add(rule.helper)
        return last + 1

    def _defining(self, s: int, call: bool) -> bool:
        """Whether the name at s is being defined or declared rather than used: the macro name of
        #define/#undef/#ifdef, defined(NAME), and for a call, a name after a type (`int NAME(`) or `::`."""
        found = _DEFINING.search(self.src, max(0, s - 256), s)
        if found is None:
            return False
        word = found.group("word")
        if word is None:
            return call or "::" not in found.group()
        if not call or word in _CALLING_WORDS:
            return False
        line = self.src.rfind("\n", 0, found.start()) + 1  # `#define M NAME(...)`: a macro body calls it
        if "\n" in self.src[found.end("word"):s] and re.match(r"[ \t]*#", self.src[line:found.start()]):
            return False  # the word ends a directive (`#ifndef X` / `NAME(`): no type of NAME
        return re.fullmatch(r"[ \t]*#[ \t]*define[ \t]+", self.src[line:found.start()]) is None

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
