#!/usr/bin/env python3
"""A local build cluster to try the shared compile cache and distcc on one machine:
one Redis server (ccache's remote storage) and N distccd daemons, each on its own
loopback port, with their logs and pids under one state folder.

  python scripts/build_cluster.py start [--daemons 2] [--slots 2] [--state build/cluster]
  python scripts/build_cluster.py env     # the settings for a build, as shell exports
  python scripts/build_cluster.py status  # what runs, and how many jobs each daemon compiled
  python scripts/build_cluster.py stop

then `eval "$(python scripts/build_cluster.py env)"; doit`. Real hosts take the same two
settings: TCORE_REMOTE_CACHE=redis://cache-host:6379 and TCORE_DISTCC_HOSTS="h1/16 h2/16"
(README: "Builds on several machines").
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_STATE = REPO / "build" / "cluster"
LOOPBACK = "127.0.0.1"  # not "localhost": distcc runs jobs for "localhost" itself, without a daemon


class ClusterError(Exception):
    pass


@dataclass(frozen=True)
class Service:
    kind: str  # "redis" or "distccd"
    pid: int
    port: int
    log: str
    slots: int = 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection((LOOPBACK, port), timeout=0.2):
            return True
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of this process does not count
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except OSError:
        return True


def _log_file(state: Path, name: str) -> Path:
    path = state / name
    path.write_text("")
    return path


def _spawn(cmd: list[str], log: Path) -> subprocess.Popen:
    with open(log, "ab") as out:
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)


def _wait_ready(proc: subprocess.Popen, port: int, log: Path, what: str) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace").strip().splitlines()[-5:]
            raise ClusterError(f"{what} exited with status {proc.returncode}:\n  " + "\n  ".join(tail))
        if _answers(port):
            return
        time.sleep(0.05)
    raise ClusterError(f"{what} did not answer on port {port} within 15 s (log: {log})")


@dataclass(frozen=True)
class Cluster:
    state: Path
    services: tuple[Service, ...]

    @property
    def redis(self) -> Service | None:
        return next((s for s in self.services if s.kind == "redis"), None)

    @property
    def daemons(self) -> tuple[Service, ...]:
        return tuple(s for s in self.services if s.kind == "distccd")

    def env(self) -> dict[str, str]:
        out = {}
        if self.redis:
            out["TCORE_REMOTE_CACHE"] = f"redis://{LOOPBACK}:{self.redis.port}"
        if self.daemons:
            out["TCORE_DISTCC_HOSTS"] = " ".join(f"{LOOPBACK}:{d.port}/{d.slots}" for d in self.daemons)
        return out

    def jobs_done(self, daemon: Service) -> int:
        """Compile jobs the daemon finished (its log's COMPILE_OK lines)."""
        try:
            return Path(daemon.log).read_text(errors="replace").count("COMPILE_OK")
        except OSError:
            return 0

    def kill(self, service: Service, sig: int = signal.SIGKILL) -> None:
        try:
            os.killpg(service.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def stop(self) -> None:
        for s in self.services:
            self.kill(s, signal.SIGTERM)
        deadline = time.monotonic() + 5
        for s in self.services:
            while _alive(s.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if _alive(s.pid):
                self.kill(s, signal.SIGKILL)
        (self.state / "cluster.json").unlink(missing_ok=True)

    def save(self) -> None:
        (self.state / "cluster.json").write_text(json.dumps([asdict(s) for s in self.services], indent=1) + "\n")


def load(state: Path = DEFAULT_STATE) -> Cluster | None:
    try:
        data = json.loads((state / "cluster.json").read_text())
    except (OSError, ValueError):
        return None
    return Cluster(state, tuple(Service(**s) for s in data))


def start(state: Path = DEFAULT_STATE, daemons: int = 2, slots: int = 2, redis: bool = True) -> Cluster:
    """Starts the services (stopping a previous cluster in the same folder first)."""
    old = load(state)
    if old is not None:
        old.stop()
    state.mkdir(parents=True, exist_ok=True)
    needed = (["redis-server"] if redis else []) + (["distccd"] if daemons else [])
    missing = [t for t in needed if shutil.which(t) is None]
    if missing:
        raise ClusterError(f"not installed: {', '.join(missing)} (Debian: apt-get install "
                           f"{' '.join('redis-server' if t == 'redis-server' else 'distcc' for t in missing)})")
    services: list[Service] = []
    cluster = Cluster(state, ())
    try:
        if redis:
            port, log = free_port(), _log_file(state, "redis.log")
            proc = _spawn(["redis-server", "--port", str(port), "--bind", LOOPBACK, "--save", "",
                           "--appendonly", "no", "--dir", str(state), "--protected-mode", "no"], log)
            services.append(Service("redis", proc.pid, port, str(log)))
            _wait_ready(proc, port, log, "redis-server")
        for i in range(daemons):
            port, log = free_port(), _log_file(state, f"distccd-{i}.log")
            proc = _spawn(["distccd", "--daemon", "--no-detach", "--port", str(port), "--listen", LOOPBACK,
                           "--allow", LOOPBACK, "--jobs", str(slots), "--log-stderr", "--log-level", "info"],
                          log)  # to stderr, which is the log file: a daemon started as root runs as
                                # user distccd, which may not be able to open a file under this folder
            services.append(Service("distccd", proc.pid, port, str(log), slots))
            _wait_ready(proc, port, log, f"distccd #{i}")
    except BaseException:
        Cluster(state, tuple(services)).stop()
        raise
    cluster = Cluster(state, tuple(services))
    cluster.save()
    return cluster


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["start", "stop", "status", "env"])
    parser.add_argument("--state", type=Path, default=DEFAULT_STATE, help="folder for logs, pids and ports")
    parser.add_argument("--daemons", type=int, default=2, help="distccd daemons to start (0: none)")
    parser.add_argument("--slots", type=int, default=2, help="parallel jobs per daemon")
    parser.add_argument("--no-redis", action="store_true", help="no Redis server")
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            if args.daemons < 0 or args.slots < 1:
                raise ClusterError("--daemons must be 0 or more and --slots 1 or more")
            cluster = start(args.state, args.daemons, args.slots, not args.no_redis)
            for s in cluster.services:
                print(f"build_cluster: {s.kind} on {LOOPBACK}:{s.port} (pid {s.pid}, log {s.log})")
            print("build_cluster: for a build, run:")
            for k, v in cluster.env().items():
                print(f"  export {k}='{v}'")
            return 0
        cluster = load(args.state)
        if cluster is None:
            print(f"build_cluster: no cluster runs from {args.state}", file=sys.stderr)
            return 1 if args.command != "stop" else 0
        if args.command == "stop":
            cluster.stop()
            print(f"build_cluster: stopped {len(cluster.services)} services")
        elif args.command == "env":
            for k, v in cluster.env().items():
                print(f"export {k}='{v}'")
        else:
            for s in cluster.services:
                state = "running" if _alive(s.pid) and _answers(s.port) else "down"
                jobs = f", {cluster.jobs_done(s)} jobs compiled" if s.kind == "distccd" else ""
                print(f"{s.kind:8} {LOOPBACK}:{s.port}  {state}{jobs}")
        return 0
    except ClusterError as e:
        print(f"build_cluster: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
