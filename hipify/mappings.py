"""The CUDA -> HIP data of mappings.yaml (generated from AMD's tables by
scripts/gen_hipify_mappings.py), checked on load, and resolved for one target: a HIP
version, and whether the ROC libraries (--roc) or MIOpen (--miopen) are the target
instead of the hip* wrappers."""
from __future__ import annotations

import json
import os
import re
from collections import namedtuple
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("mappings.yaml")
KINDS = ("runtime", "driver", "device", "rtc", "complex", "blas", "rand", "fft", "sparse", "solver", "dnn", "cub")
ROC_KINDS = frozenset({"blas", "rand", "sparse", "solver"})  # --roc: rocBLAS, rocRAND, rocSPARSE, rocSOLVER
NEWEST = (99, 0, 0)  # no --hip-version and no hipcc: every mapping of the tables
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REPLACEMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_:<>*]*$")  # a HIP side may be a type: void*


class MappingsError(Exception):
    pass


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


# The models are named tuples (immutable, hashable): `python -m hipify` imports this module on every
# run, and a rerun with nothing to translate should not pay for dataclasses' import and code generation.
class Target(namedtuple("Target", "hip_version roc miopen", defaults=(NEWEST, False, False))):
    """What the translation is for (part of every cached translation's key): hip_version (X, Y, Z),
    roc (rocBLAS/rocSPARSE/... instead of the hip* wrappers), miopen (cuDNN to MIOpen)."""
    __slots__ = ()

    @property
    def label(self) -> str:
        return "newest" if self.hip_version == NEWEST else ".".join(map(str, self.hip_version[:2]))


class Mappings(namedtuple("Mappings", "target identifiers missing headers header_prefixes hip_names cuda_like digest")):
    """The data resolved for one target: identifiers (CUDA name -> HIP name, only names that change),
    missing (CUDA name -> why it stays: "no HIP equivalent (HIP 5.2)", ...), headers (CUDA header ->
    HIP header, None: no counterpart for the target), header_prefixes ((prefix, replacement), ...),
    hip_names (every HIP name the data produces: never reported as CUDA), cuda_like (the pattern of
    names that are CUDA's), digest (identifies data and target)."""
    __slots__ = ()

    def identifier(self, name: str) -> str | None:
        return self.identifiers.get(name)

    def header(self, path: str) -> tuple[str | None, bool]:
        """(HIP path or None, known): known says the path is a CUDA header of the data."""
        if path in self.headers:
            return self.headers[path], True
        for prefix, replacement in self.header_prefixes:
            if path.startswith(prefix):
                return (replacement + path[len(prefix):] if replacement.endswith("/") else replacement), True
        return None, False

    def looks_like_cuda(self, name: str) -> bool:
        return self.cuda_like.match(name) is not None and name not in self.hip_names


def _check(cond: bool, path: str, msg: str) -> None:
    if not cond:
        raise MappingsError(f"{path}: {msg}")


def parse(raw: bytes, path: str = str(DATA)) -> dict:
    """The YAML, checked: every field of the expected type, every version X.Y.Z, every name an identifier."""
    import yaml  # here: a rerun with nothing to translate never needs it

    try:
        data = yaml.load(raw, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        raise MappingsError(f"{path}: not valid YAML: {e}") from None
    _check(isinstance(data, dict) and data.get("format") == 2, path, "not a format 2 mappings file")
    unknown = set(data) - {"format", "headers", "header_prefixes", "cuda_like", "identifiers"}
    _check(not unknown, path, f"unknown keys {sorted(unknown)}")
    for section in ("headers", "header_prefixes"):
        for name, h in (data.get(section) or {}).items():
            _check(isinstance(h, dict) and isinstance(h.get("hip"), str), path, f"{section}.{name}: needs hip: PATH")
            _check(h.get("kind") in KINDS, path, f"{section}.{name}: unknown kind {h.get('kind')!r}")
            extra = set(h) - {"kind", "hip", "since", "before", "roc", "miopen"}
            _check(not extra, path, f"{section}.{name}: unknown fields {sorted(extra)}")
            _check("since" not in h or _VERSION.match(str(h["since"])) is not None, path,
                   f"{section}.{name}: since must be X.Y.Z")
    idents = data.get("identifiers")
    _check(isinstance(idents, dict), path, "identifiers: missing")
    for kind, section in idents.items():
        _check(kind in KINDS, path, f"identifiers: unknown kind {kind!r}")
        _check(isinstance(section, dict), path, f"identifiers.{kind}: not a mapping")
        for name, entry in section.items():
            _check(isinstance(name, str) and _NAME.match(name) is not None, path, f"identifiers.{kind}: bad name {name!r}")
            _check(isinstance(entry, list) and len(entry) <= 6 and all(isinstance(x, str) for x in entry), path,
                   f"identifiers.{kind}.{name}: expected [hip, added, removed, alt, alt_added, alt_removed]")
            for i, x in enumerate(entry):
                ok = _REPLACEMENT.match(x) if i in (0, 3) else _VERSION.match(x)
                _check(x == "" or ok is not None, path, f"identifiers.{kind}.{name}: bad field {i}: {x!r}")
    for pattern in data.get("cuda_like") or []:
        try:
            re.compile(pattern)
        except re.error as e:
            raise MappingsError(f"{path}: cuda_like {pattern!r}: {e}") from None
    return data


def _available(added: str, removed: str, target: Target) -> bool:
    v = target.hip_version
    return (not added or version_tuple(added) <= v) and (not removed or version_tuple(removed) > v)


def resolve(data: dict, target: Target, digest: str) -> Mappings:
    import hashlib

    identifiers: dict[str, str] = {}
    missing: dict[str, str] = {}
    hip_names: set[str] = set()
    why = f"no HIP equivalent (HIP {target.label})"
    for kind, section in data["identifiers"].items():
        alt_wanted = (target.roc and kind in ROC_KINDS) or (target.miopen and kind == "dnn")
        for name, entry in section.items():
            entry = entry + [""] * (6 - len(entry))
            new, added, removed = (entry[3], entry[4], entry[5]) if alt_wanted else (entry[0], entry[1], entry[2])
            if new:
                hip_names.add(new)
            if not new:
                missing[name] = ("no ROC library equivalent" if kind in ROC_KINDS else "no MIOpen equivalent") \
                    if alt_wanted else "no HIP equivalent"
            elif not _available(added, removed, target):
                missing[name] = why
            elif new != name:
                identifiers[name] = new
    headers: dict[str, str | None] = {}
    for name, h in (data.get("headers") or {}).items():
        choice = h.get("roc") if target.roc and h.get("roc") else h.get("miopen") if target.miopen and h.get(
            "miopen") else h["hip"]
        if "since" in h and version_tuple(str(h["since"])) > target.hip_version:
            choice = h.get("before")
        headers[name] = choice or None
    prefixes = tuple(sorted(((p, h["hip"]) for p, h in (data.get("header_prefixes") or {}).items()),
                            key=lambda kv: -len(kv[0])))
    patterns = data.get("cuda_like") or []
    return Mappings(target, identifiers, missing, headers, prefixes, frozenset(hip_names),
                    re.compile("|".join(f"(?:{p})" for p in patterns) or "(?!)"),
                    hashlib.sha1(f"{digest}:{target}".encode()).hexdigest())


CACHE_FORMAT = 1


def _cache_path(path: str) -> Path:
    """Where the checked data of path is kept as JSON (beside Python's own bytecode cache)."""
    p = Path(path)
    return p.parent / "__pycache__" / f"{p.name}.json"


@lru_cache(maxsize=None)
def _parsed(path: str) -> tuple[dict, str]:
    """The checked data of the YAML file and its sha1. The YAML takes ~0.4 s to parse, so the result
    is kept as JSON (~10 ms to read) under the sha1 of the YAML's bytes: an edited file is parsed
    again, and a cache that is damaged or not ours is ignored (and rewritten)."""
    import hashlib

    raw = Path(path).read_bytes()
    digest = hashlib.sha1(raw).hexdigest()
    cache = _cache_path(path)
    try:
        cached = json.loads(cache.read_bytes())
        if cached.get("format") == CACHE_FORMAT and cached.get("sha1") == digest and \
                isinstance(cached.get("data"), dict):
            return cached["data"], digest
    except (OSError, ValueError, AttributeError):
        pass
    data = parse(raw, path)
    tmp = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
    try:
        cache.parent.mkdir(exist_ok=True)
        tmp.write_text(json.dumps({"format": CACHE_FORMAT, "sha1": digest, "data": data}, separators=(",", ":")))
        os.replace(tmp, cache)
    except OSError:  # a read-only install: no cache
        try:
            tmp.unlink()
        except OSError:
            pass
    return data, digest


@lru_cache(maxsize=None)
def load(target: Target = Target(), path: str = str(DATA)) -> Mappings:
    data, digest = _parsed(path)
    try:
        return resolve(data, target, digest)
    except (KeyError, TypeError, AttributeError, ValueError, IndexError, re.error):
        if _cache_path(path).exists():  # a cache that passed for ours but is not: the YAML decides
            _cache_path(path).unlink()
            _parsed.cache_clear()
            return resolve(*_parsed(path)[:1], target, digest)
        raise


# the files whose change changes what a translation gives (the data, and the code that applies it)
TRANSLATOR = ("mappings.py", "translate.py", "rules.py")


def data_digest(path: str = str(DATA)) -> str:
    """The identity of the data file and of the translator's code, without reading them (a rerun with
    nothing changed needs no more): an edited data file or a new hipify translates everything again."""
    stamps = []
    for p in (path, *(DATA.with_name(f) for f in TRANSLATOR)):
        st = os.stat(p)
        stamps.append(f"{st.st_size}:{st.st_mtime_ns}")
    return ":".join(stamps)


def installed_hip_version() -> tuple[int, int, int] | None:
    """The HIP version of the installed hipcc (from hip/hip_version.h beside it), or None."""
    candidates = []
    hipcc = next((os.path.join(d, "hipcc") for d in os.environ.get("PATH", "").split(os.pathsep)
                  if d and os.access(os.path.join(d, "hipcc"), os.X_OK)), None)  # shutil.which, without shutil
    if hipcc:
        prefix = Path(os.path.realpath(hipcc)).parent.parent
        candidates.append(prefix / "include" / "hip" / "hip_version.h")
    candidates += [Path("/opt/rocm/include/hip/hip_version.h"), Path("/usr/include/hip/hip_version.h")]
    if not hipcc:
        return None
    for header in candidates:
        try:
            text = header.read_text(errors="replace")
        except OSError:
            continue
        major = re.search(r"#define\s+HIP_VERSION_MAJOR\s+(\d+)", text)
        minor = re.search(r"#define\s+HIP_VERSION_MINOR\s+(\d+)", text)
        if major and minor:
            return int(major.group(1)), int(minor.group(1)), 0
    return None


def parse_hip_version(text: str) -> tuple[int, int, int]:
    """'5.2' or '5.2.3' -> (5, 2, 3); ValueError otherwise."""
    parts = text.strip().split(".")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() and len(p) <= 4 for p in parts):
        raise ValueError(f"--hip-version {text!r}: expected MAJOR.MINOR (e.g. 5.2)")
    nums = [int(p) for p in parts] + [0] * (3 - len(parts))
    return nums[0], nums[1], nums[2]
