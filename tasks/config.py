"""Where everything lives, and the environment variables the tasks honour
(CONTRACTS.md): TCORE_NATIVE_FUNCTIONS_PATH, TCORE_TAGS_PATH, TCORE_DERIVATIVES_PATH,
TCORE_GEN_DIR, TCORE_SELECTED_OP_LIST_PATH, USE_CUDA, USE_ROCM, MAX_JOBS, TCORE_DISABLE_AUTOGRAD,
TCORE_NATIVE_ARCH."""
from __future__ import annotations

import os
import sysconfig
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Every task prints as it goes and doit does not capture its output: doit's capture swaps
# sys.stdout per action, which is not thread-safe, and `doit -n N -P thread` must work.
LIVE_OUTPUT = {"verbosity": 2, "io": {"capture": False}}


@dataclass(frozen=True)
class Paths:
    root: Path
    native_functions: Path
    tags: Path
    derivatives: Path | None
    selected_ops: Path | None
    gen_dir: Path
    build_dir: Path
    state_dir: Path  # doit's database, the lock, the codegen parse cache
    package_dir: Path  # where _C and lib/libtcore.so land
    custom_ops: bool  # the YAML comes from elsewhere (e.g. PyTorch's)
    disable_autograd: bool  # TCORE_DISABLE_AUTOGRAD=1: no autograd code generated or built

    @property
    def extension(self) -> Path:
        return self.package_dir / ("_C" + sysconfig.get_config_var("EXT_SUFFIX"))

    @property
    def library(self) -> Path:
        return self.package_dir / "lib" / "libtcore.so"


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).resolve() if value else None


def paths() -> Paths:
    native = _env_path("TCORE_NATIVE_FUNCTIONS_PATH")
    gen = _env_path("TCORE_GEN_DIR")
    derivatives = _env_path("TCORE_DERIVATIVES_PATH")
    if derivatives is None and native is None and (ROOT / "csrc/autograd/derivatives.yaml").exists():
        derivatives = ROOT / "csrc/autograd/derivatives.yaml"
    if gen is None:
        gen_dir, build_dir, state_dir, package_dir = ROOT / "generated", ROOT / "build", ROOT / "build", ROOT / "tcore"
    else:
        gen_dir, build_dir, state_dir, package_dir = gen, gen / "build", gen, gen / "build" / "python"
    return Paths(
        root=ROOT,
        native_functions=native or ROOT / "csrc/native/native_functions.yaml",
        tags=_env_path("TCORE_TAGS_PATH") or ROOT / "csrc/native/tags.yaml",
        derivatives=derivatives,
        selected_ops=_env_path("TCORE_SELECTED_OP_LIST_PATH"),
        gen_dir=gen_dir,
        build_dir=build_dir,
        state_dir=state_dir,
        package_dir=package_dir,
        custom_ops=native is not None,
        disable_autograd=_disable_autograd(),
    )


class SettingError(Exception):
    """An environment variable with a value tcore cannot use."""


_ON, _OFF = ("1", "on", "true", "yes"), ("0", "off", "false", "no")


def switch(name: str, default: bool) -> bool:
    """A 0/1 setting (TCORE_DISABLE_AUTOGRAD); unset or empty means the default."""
    value = tristate(name)
    return default if value is None else value


def _disable_autograd() -> bool:
    try:
        return switch("TCORE_DISABLE_AUTOGRAD", False)
    except SettingError:
        return False  # check_settings() reports it


def tristate(name: str) -> bool | None:
    """USE_CUDA=0/1 forces a backend; unset means 'when its compiler is found'."""
    value = os.environ.get(name, "").strip()
    if value == "":
        return None
    if value.lower() in _ON:
        return True
    if value.lower() in _OFF:
        return False
    raise SettingError(f"{name}={value!r} is not 0 or 1 (or unset)")


def parse_max_jobs(value: str | None) -> int | None:
    """MAX_JOBS: a positive whole number in ASCII digits ('²' and '١' are digits to str.isdigit)."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise SettingError(f"MAX_JOBS={value!r} is not a positive whole number")
    return int(text)


def max_jobs() -> int | None:
    return parse_max_jobs(os.environ.get("MAX_JOBS"))


def cpu_capabilities() -> str:
    """TCORE_CPU_CAPABILITIES: the capabilities of cmake/cpu_capabilities.txt to compile the
    kernels for, comma-separated (empty or unset: all of them)."""
    value = os.environ.get("TCORE_CPU_CAPABILITIES", "")
    names = [n.strip() for n in value.split(",") if n.strip()]
    for n in names:
        if not (n.isascii() and n.replace("_", "").isalnum()):
            raise SettingError(f"TCORE_CPU_CAPABILITIES={value!r}: {n!r} is not a capability name")
    return ",".join(names)


def check_settings() -> None:
    """Every setting read from the environment, checked once when dodo.py loads, so a bad value
    is one message before anything runs (SettingError)."""
    for name in ("USE_CUDA", "USE_ROCM", "TCORE_DISABLE_AUTOGRAD", "TCORE_NATIVE_ARCH"):
        tristate(name)
    max_jobs()
    cpu_capabilities()
