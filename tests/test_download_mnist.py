"""scripts/download_mnist.py against loopback HTTP servers: a good mirror, one that
fails, one that serves a corrupt file, one that drops the connection mid-file."""
from __future__ import annotations

import gzip
import hashlib
import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from module_loader import import_module  # noqa: E402

dl = import_module("tcore_download_mnist", ROOT / "scripts" / "download_mnist.py")


def make_files() -> dict[str, bytes]:
    data = {}
    for name, payload in (("a-idx1-ubyte", b"\x00\x00\x08\x01" + bytes(range(256)) * 40),
                          ("b-idx1-ubyte", b"\x00\x00\x08\x01" + b"xyz" * 3000)):
        data[name + ".gz"] = gzip.compress(payload, mtime=0)
    return data


FILES = make_files()
RESOURCES = tuple(dl.Resource(n[:-3], hashlib.md5(b).hexdigest()) for n, b in FILES.items())


class Handler(http.server.BaseHTTPRequestHandler):
    mode = "good"
    requests: list = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        name = self.path.rsplit("/", 1)[-1]
        self.requests.append((self.server.mode, name, self.headers.get("Range")))
        mode = self.server.mode
        if mode == "fail" or name not in FILES:
            self.send_error(404)
            return
        body = FILES[name]
        if mode == "corrupt":
            body = body[:-10] + b"\x00" * 10
        start = 0
        rng = self.headers.get("Range")
        if rng and mode in ("good", "drop"):
            start = int(rng.split("=")[1].split("-")[0])
        self.send_response(206 if start else 200)
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        if mode == "drop" and not start:
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.connection.shutdown(2)
            return
        self.wfile.write(body[start:])


@pytest.fixture()
def servers():
    started = {}
    for mode in ("good", "fail", "corrupt", "drop"):
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        srv.mode = mode
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        started[mode] = (srv, f"http://127.0.0.1:{srv.server_address[1]}/mnist/")
    Handler.requests = []
    yield {m: url for m, (_, url) in started.items()}
    for srv, _ in started.values():
        srv.shutdown()  # returns within one poll interval
        srv.server_close()


def test_falls_through_failing_and_corrupt_mirrors(servers, tmp_path):
    dl.download(tmp_path, [servers["fail"], servers["corrupt"], servers["good"]], RESOURCES, quiet=True)
    for r in RESOURCES:
        assert (tmp_path / r.name).read_bytes() == gzip.decompress(FILES[r.archive])
        assert not (tmp_path / (r.archive + ".part")).exists()
    modes = [m for m, _, _ in Handler.requests]
    assert "fail" in modes and "corrupt" in modes and "good" in modes


def test_dropped_connection_resumes(servers, tmp_path):
    dl.download(tmp_path, [servers["drop"]], RESOURCES, quiet=True)
    for r in RESOURCES:
        assert (tmp_path / r.name).read_bytes() == gzip.decompress(FILES[r.archive])
    assert any(rng for _, _, rng in Handler.requests), "the second request must ask for the rest (Range)"


def test_present_files_are_skipped(servers, tmp_path):
    dl.download(tmp_path, [servers["good"]], RESOURCES, quiet=True)
    Handler.requests = []
    dl.download(tmp_path, [servers["good"]], RESOURCES, quiet=True)
    assert Handler.requests == []


def test_every_mirror_failing_is_one_clear_error(servers, tmp_path):
    with pytest.raises(dl.DownloadError, match="could not download a-idx1-ubyte.gz from any mirror"):
        dl.download(tmp_path, [servers["fail"], servers["corrupt"]], RESOURCES, quiet=True)
    assert not (tmp_path / "a-idx1-ubyte").exists()
    assert not list(tmp_path.glob("*.part"))


def test_cli_exit_code(servers, tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "scripts/download_mnist.py"), "--dir", str(tmp_path),
                        "--mirror", servers["fail"]], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1
    assert "download_mnist: error: could not download" in r.stderr and "HTTP 404" in r.stderr
    assert "Traceback" not in r.stderr


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts/download_mnist.py"), "--quiet", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=60)


@pytest.mark.parametrize("args,code,message", [
    (["--dir", "{file}"], 2, "argument --dir: {file} is not a folder"),
    (["--dir", "{file}/sub"], 2, "{file} is a file, not a folder"),
    (["--dir", ""], 2, "argument --dir: '' is not a path"),
    (["--mirror", "notaurl"], 2, "argument --mirror: 'notaurl' is not an http://, https:// or file:// URL"),
    (["--mirror", "http://"], 2, "'http://' is not an http://"),
    (["--mirror", "ftp://host/x/"], 2, "'ftp://host/x/' is not an http://"),
    (["--dir", "/proc/tcore-no-such-folder"], 1, "download_mnist: error: /proc/tcore-no-such-folder"),
    (["--dir", "{tmp}/d", "--mirror", "file:///nonexistent-tcore/"], 1, "could not download"),
])
def test_bad_arguments_are_one_message(tmp_path, args, code, message):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    fill = {"file": str(afile), "tmp": str(tmp_path)}
    r = _cli(*(a.format(**fill) for a in args), cwd=tmp_path)
    assert r.returncode == code, r.stderr
    assert message.format(**fill) in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert afile.read_text() == "not a folder"


def test_unwritable_folder_is_one_message(tmp_path):
    if os.geteuid() == 0:
        folder = Path("/proc/self/tcore")  # root writes anywhere else
    else:
        folder = tmp_path / "ro" / "mnist"
        (tmp_path / "ro").mkdir(mode=0o500)
    r = _cli("--dir", str(folder), "--mirror", "file:///nonexistent-tcore/", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("download_mnist: error: ") and "Traceback" not in r.stderr
