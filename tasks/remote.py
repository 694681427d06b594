"""Builds that reach past this machine: a shared compile cache and distributed compilation.

Two environment variables, read when the build runs:

  TCORE_REMOTE_CACHE   ccache's remote storage, e.g. redis://cache.example:6379 (also
                       redis+unix:/path/to/socket and http://host/path, as ccache has them)
  TCORE_DISTCC_HOSTS   a distcc host list in DISTCC_HOSTS syntax, e.g. "build1:3632/8 build2/8,lzo"

Both reach the compilers through ccache's and distcc's own environment variables
(CCACHE_REMOTE_STORAGE, CCACHE_PREFIX=distcc, DISTCC_HOSTS), never through the compile
commands: switching them on, off or to other hosts changes no command line, so ninja
rebuilds nothing and the cache keys stay the same. CCACHE_BASEDIR is the repository, so
a checkout in another folder (or on another machine) hashes to the same entries.

Before the build the hosts are probed: a malformed list or URL stops the build with one
error (nothing is compiled); an unreachable cache or host is a warning and the build goes
on locally; the job count becomes the slots of the hosts that answer.
"""
from __future__ import annotations

import os
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

from codegen.errors import Location, SourceError

DISTCC_PORT = 3632
DEFAULT_REMOTE_SLOTS = 4  # distcc's own default limit for a TCP host
DEFAULT_LOCAL_SLOTS = 2  # ... and for localhost

# HOST[:PORT][/LIMIT][,OPTION...] | [USER]@HOST[/LIMIT][:COMMAND][,OPTION...] | localhost[/LIMIT] | --options
_HOSTNAME = r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.\-_]*)"
_OPTIONS = r"(?P<options>(?:,(?:lzo|cpp|auth(?:=[^,\s]+)?))*)"
_TCP = re.compile(rf"(?P<host>{_HOSTNAME})(?::(?P<port>\d+))?(?:/(?P<limit>\d+))?{_OPTIONS}")
_SSH = re.compile(rf"(?P<user>[A-Za-z0-9._\-]*)@(?P<host>{_HOSTNAME})(?:/(?P<limit>\d+))?(?::(?P<command>\S+?))?{_OPTIONS}")
_GLOBAL = re.compile(r"--randomize|--localslots(?:_cpp)?=\d+|\+zeroconf")
_SYNTAX = "HOST[:PORT][/LIMIT][,lzo][,cpp], USER@HOST[/LIMIT], localhost[/LIMIT] or --randomize"


@dataclass(frozen=True)
class Host:
    name: str
    port: int
    limit: int
    ssh: bool = False

    @property
    def local(self) -> bool:
        return self.name == "localhost"

    def __str__(self) -> str:
        return self.name if self.local or self.ssh else f"{self.name}:{self.port}"


@dataclass(frozen=True)
class RemoteSettings:
    cache_url: str | None = None
    hosts_text: str | None = None  # as written: distcc parses it again itself
    hosts: tuple[Host, ...] = ()


@dataclass(frozen=True)
class BuildEnvironment:
    """What the build gets: environment variables, a job count (None = ninja's default), warnings."""
    env: dict
    jobs: int | None
    notes: tuple[str, ...]
    distcc: bool
    remote_cache: bool


def parse_hosts(text: str, source: str = "TCORE_DISTCC_HOSTS") -> tuple[Host, ...]:
    hosts = []
    for m in re.finditer(r"\S+", text):
        word = m.group()
        where = Location(source, 1, m.start() + 1, text)
        if _GLOBAL.fullmatch(word):
            continue
        tcp, ssh = _TCP.fullmatch(word), _SSH.fullmatch(word)
        match = tcp or ssh
        if match is None:
            raise SourceError(f"{word!r} is not a distcc host ({_SYNTAX})", where)
        limit = int(match["limit"]) if match["limit"] else None
        if limit == 0:
            raise SourceError(f"{word!r}: a host's job limit must be at least 1", where)
        name = match["host"].strip("[]")
        if tcp:
            port = int(tcp["port"]) if tcp["port"] else DISTCC_PORT
            if not 0 < port < 65536:
                raise SourceError(f"{word!r}: port {port} is out of range", where)
            default = DEFAULT_LOCAL_SLOTS if name == "localhost" else DEFAULT_REMOTE_SLOTS
            hosts.append(Host(name, port, limit or default))
        else:
            hosts.append(Host(name, 22, limit or DEFAULT_REMOTE_SLOTS, ssh=True))
    if not hosts:
        raise SourceError("the host list names no host", Location(source, 1, 1, text))
    return tuple(hosts)


def check_cache_url(url: str, source: str = "TCORE_REMOTE_CACHE") -> str:
    parts = urlsplit(url)
    where = Location(source, 1, 1, url)
    if parts.scheme not in ("redis", "redis+unix", "http"):
        raise SourceError(f"{url!r}: the remote cache must be redis://HOST[:PORT][/DB], redis+unix:/SOCKET "
                          "or http://HOST[:PORT]/PATH (ccache's remote storage)", where)
    if parts.scheme == "redis+unix":
        if not parts.path:
            raise SourceError(f"{url!r} names no socket", where)
        return url
    try:
        port = parts.port  # raises ValueError for a bad or out-of-range port
    except ValueError:
        raise SourceError(f"{url!r}: the port is not a number from 1 to 65535",
                          Location(source, 1, url.rfind(":") + 2, url)) from None
    if not parts.hostname:
        raise SourceError(f"{url!r} names no host", where)
    if parts.scheme == "redis" and parts.path.strip("/") and not parts.path.strip("/").isdigit():
        raise SourceError(f"{url!r}: a Redis database is a number (redis://HOST:PORT/0)",
                          Location(source, 1, len(url) - len(parts.path) + 1, url))
    del port
    return url


def settings_from_env(env=None) -> RemoteSettings:
    """Raises SourceError for a malformed value."""
    env = os.environ if env is None else env
    url = env.get("TCORE_REMOTE_CACHE", "").strip() or None
    hosts_text = env.get("TCORE_DISTCC_HOSTS", "").strip() or None
    return RemoteSettings(
        cache_url=check_cache_url(url) if url else None,
        hosts_text=hosts_text,
        hosts=parse_hosts(hosts_text) if hosts_text else (),
    )


def probe(host: str, port: int, timeout: float = 1.0) -> str | None:
    """None when something accepts a TCP connection there, else why not."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except socket.timeout:
        return "no answer within 1 s"
    except OSError as e:
        return e.strerror or str(e)


def _probe_cache(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme == "redis+unix":
        return None if os.path.exists(parts.path) else f"no socket at {parts.path}"
    return probe(parts.hostname, parts.port or (6379 if parts.scheme == "redis" else 80))


def build_environment(settings: RemoteSettings, root: str, launcher: str | None, local_jobs: int | None,
                      max_jobs: int | None) -> BuildEnvironment:
    """The environment and job count of one build. `launcher`: the compiler launcher CMake
    chose (a path to ccache, sccache or distcc, or None)."""
    name = os.path.basename(launcher) if launcher else ""
    env, notes = {}, []
    if name == "ccache":
        env["CCACHE_BASEDIR"] = root
    remote_cache = False
    if settings.cache_url:
        if name != "ccache":
            notes.append(f"tcore: warning: TCORE_REMOTE_CACHE needs ccache as the compiler launcher "
                         f"(this build tree uses {name or 'none'}); building without the remote cache")
        else:
            why = _probe_cache(settings.cache_url)
            if why:
                notes.append(f"tcore: warning: the remote cache {settings.cache_url} does not answer ({why}); "
                             "building with the local cache only")
            else:
                env["CCACHE_REMOTE_STORAGE"] = settings.cache_url
                remote_cache = True
    jobs = max_jobs
    distcc = False
    if settings.hosts:
        if name not in ("ccache", "distcc"):
            notes.append("tcore: warning: TCORE_DISTCC_HOSTS is set but neither ccache nor distcc is the compiler "
                         "launcher (install distcc and reconfigure); compiling locally")
        else:
            tcp = [h for h in settings.hosts if not h.local and not h.ssh]
            with ThreadPoolExecutor(max_workers=max(1, len(tcp))) as pool:
                answers = dict(zip(tcp, pool.map(lambda h: probe(h.name, h.port), tcp)))
            down = [f"{h} ({why})" for h, why in answers.items() if why]
            up = [h for h in settings.hosts if answers.get(h) is None]
            remote_up = [h for h in up if not h.local]
            if not remote_up:
                notes.append(f"tcore: warning: no distcc host answers ({', '.join(down)}); compiling locally")
            else:
                if down:
                    notes.append(f"tcore: warning: distcc hosts down: {', '.join(down)}; using the others")
                env["DISTCC_HOSTS"] = settings.hosts_text
                if name == "ccache":
                    env["CCACHE_PREFIX"] = "distcc"
                distcc = True
                if jobs is None:  # the slots of the hosts that answer, plus this machine's cores
                    locals_ = sum(h.limit for h in up if h.local)
                    jobs = sum(h.limit for h in remote_up) + (locals_ or local_jobs or 1)
                notes.append(f"tcore: distcc: {len(remote_up)} host(s) answer "
                             f"({', '.join(str(h) for h in remote_up)}), {jobs} parallel jobs; linking stays local")
    return BuildEnvironment(env=env, jobs=jobs, notes=tuple(notes), distcc=distcc, remote_cache=remote_cache)


# ------------------------------------------------------------------- ccache statistics

def ccache_counters(env: dict) -> dict[str, int] | None:
    import shutil
    import subprocess

    if shutil.which("ccache") is None:
        return None
    r = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    out = {}
    for line in r.stdout.splitlines():
        key, _, value = line.partition("\t")
        if value.strip().isdigit():
            out[key] = int(value)
    return out


@dataclass(frozen=True)
class CacheUse:
    hits: int
    remote_hits: int
    misses: int
    remote_errors: int

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0

    def __str__(self) -> str:
        text = (f"tcore: ccache: {self.hits} of {self.hits + self.misses} compilations served from the cache "
                f"({self.remote_hits} from remote storage), {self.misses} compiled, hit rate {self.hit_rate:.0%}")
        if self.remote_errors:
            text += f"; {self.remote_errors} remote storage errors"
        return text


def cache_use(before: dict[str, int], after: dict[str, int]) -> CacheUse:
    def d(key: str) -> int:
        return after.get(key, 0) - before.get(key, 0)

    hits = d("direct_cache_hit") + d("preprocessed_cache_hit")
    return CacheUse(hits=hits, remote_hits=d("remote_storage_hit"), misses=d("cache_miss"),
                    remote_errors=d("remote_storage_error") + d("remote_storage_timeout"))


_FALLBACK = re.compile(r"distcc\[\d+\] Warning: failed to distribute")


def distcc_fallbacks(lines: list[str]) -> int:
    return sum(1 for line in lines if _FALLBACK.search(line))
