#!/usr/bin/env python3
"""Download MNIST for the C++ tests and examples (as PyTorch's tools/download_mnist.py).

    python scripts/download_mnist.py [--dir DIR] [--mirror URL ...] [--quiet]

Tries each mirror in order for each of the four files, checks the MD5 of the
download, decompresses it, and skips files already present and valid. An interrupted
download resumes (HTTP Range) or restarts; partial data only ever lives in *.part
files, never under the final name. Exits 1 with a clear message when every mirror
fails for a file or the folder cannot be written, 2 for a --dir that is not a folder or a
--mirror that is not an http(s):// or file:// URL.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DIR = REPO / "build" / "data" / "mnist"
MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)


@dataclass(frozen=True)
class Resource:
    name: str  # the decompressed file name
    md5: str  # of the .gz

    @property
    def archive(self) -> str:
        return self.name + ".gz"


RESOURCES = (
    Resource("train-images-idx3-ubyte", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
    Resource("train-labels-idx1-ubyte", "d53e105ee54ea40749a09fcbcd1e9432"),
    Resource("t10k-images-idx3-ubyte", "9fb629c4189551a2d022fa330f9573f3"),
    Resource("t10k-labels-idx1-ubyte", "ec29112dd5afa0611ce80d1b7f02629c"),
)
CHUNK = 1 << 16


class DownloadError(Exception):
    pass


def md5_of(path: Path) -> str:
    h = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


class Progress:
    """rich progress bar on a terminal, plain lines otherwise."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.fancy = not quiet and sys.stdout.isatty() and not os.environ.get("CI")
        self._progress = None

    def __enter__(self):
        if self.fancy:
            from rich.progress import BarColumn, DownloadColumn, Progress as RichProgress, TransferSpeedColumn

            self._progress = RichProgress("{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn())
            self._progress.__enter__()
        return self

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def line(self, text: str) -> None:
        if self.quiet:
            return
        if self._progress is not None:
            self._progress.console.print(text)
        else:
            print(text, flush=True)

    def start(self, name: str, total: int | None, done: int):
        if self._progress is None:
            return None
        return self._progress.add_task(name, total=total, completed=done)

    def advance(self, task, n: int) -> None:
        if task is not None:
            self._progress.advance(task, n)


def fetch(url: str, part: Path, progress: Progress, timeout: float) -> None:
    """Downloads url into part, resuming from part's size when the server allows it."""
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            if have and response.status != 206:  # the server ignored Range: restart
                have = 0
            total = response.headers.get("Content-Length")
            total = int(total) + have if total is not None else None
            task = progress.start(part.name.removesuffix(".part"), total, have)
            with open(part, "ab" if have else "wb") as out:
                while True:
                    block = response.read(CHUNK)
                    if not block:
                        break
                    out.write(block)
                    progress.advance(task, len(block))
            if total is not None and part.stat().st_size < total:
                raise DownloadError(f"connection closed after {part.stat().st_size} of {total} bytes")
    except urllib.error.HTTPError as e:
        if e.code == 416 and have:  # already complete
            return
        raise DownloadError(f"HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        raise DownloadError(str(reason)) from None


def decompress(archive: Path, target: Path) -> None:
    part = target.with_name(target.name + ".part")
    with gzip.open(archive, "rb") as src, open(part, "wb") as dst:
        for block in iter(lambda: src.read(CHUNK), b""):
            dst.write(block)
    os.replace(part, target)


def is_valid(folder: Path, r: Resource) -> bool:
    archive, target = folder / r.archive, folder / r.name
    return archive.exists() and target.exists() and md5_of(archive) == r.md5


def _from_mirror(folder: Path, r: Resource, url: str, progress: Progress, timeout: float, attempts: int,
                 errors: list[str]) -> bool:
    """Up to `attempts` tries (each resumes the previous one's .part); True once valid."""
    archive, part = folder / r.archive, folder / (r.archive + ".part")
    for _ in range(attempts):
        try:
            progress.line(f"{r.name}: downloading {url}" + (" (resuming)" if part.exists() else ""))
            fetch(url, part, progress, timeout)
            digest = md5_of(part)
            if digest != r.md5:
                part.unlink()
                errors.append(f"{url}: checksum mismatch (md5 {digest}, expected {r.md5})")
                progress.line(f"{r.name}: {url} served a corrupt file")
                return False  # retrying the same mirror would give the same bytes
            os.replace(part, archive)
            decompress(archive, folder / r.name)
            progress.line(f"{r.name}: ok")
            return True
        except DownloadError as e:
            errors.append(f"{url}: {e}")
            progress.line(f"{r.name}: {url} failed: {e}")
    return False


def download(folder: Path, mirrors: list[str], resources=RESOURCES, quiet: bool = False, timeout: float = 30.0,
             attempts_per_mirror: int = 2) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with Progress(quiet) as progress:
        for r in resources:
            if is_valid(folder, r):
                progress.line(f"{r.name}: present and valid, skipped")
                continue
            errors: list[str] = []
            if not any(_from_mirror(folder, r, m.rstrip("/") + "/" + r.archive, progress, timeout,
                                    attempts_per_mirror, errors) for m in mirrors):
                (folder / (r.archive + ".part")).unlink(missing_ok=True)
                raise DownloadError(f"could not download {r.archive} from any mirror:\n  " + "\n  ".join(errors))


def mirror_url(text: str) -> str:
    """argparse type of --mirror: an http(s):// URL with a host, or a file:// URL."""
    url = urllib.parse.urlsplit(text)
    if url.scheme in ("http", "https") and url.netloc or url.scheme == "file" and url.path:
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is not an http://, https:// or file:// URL")


def folder_arg(text: str) -> Path:
    """argparse type of --dir: a folder, or a path where one can be made."""
    path = Path(text)
    if not text or "\0" in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a path")
    for existing in (path, *path.parents):
        if existing.exists() or existing.is_symlink():
            if not existing.is_dir():
                raise argparse.ArgumentTypeError(f"{existing} is not a folder" if existing == path else
                                                 f"{text}: {existing} is a file, not a folder")
            break
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="download_mnist.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=folder_arg, default=DEFAULT_DIR, help=f"where the files go (default {DEFAULT_DIR})")
    parser.add_argument("--mirror", type=mirror_url, action="append", default=None,
                        help="a mirror URL (repeatable; replaces the list)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)  # a bad --dir or --mirror: usage and exit 2
    try:
        download(args.dir, args.mirror or list(MIRRORS), quiet=args.quiet)
    except DownloadError as e:
        print(f"download_mnist: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the folder cannot be made or written (permissions, a full disk)
        print(f"download_mnist: error: {e.filename or args.dir}: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("download_mnist: interrupted; a rerun resumes from the *.part files", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
