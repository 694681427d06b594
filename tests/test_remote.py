"""The shared-cache / distcc settings (tasks/remote.py) and the local test cluster
(scripts/build_cluster.py), without building anything."""
from __future__ import annotations

import shutil
import socket
import threading

import pytest

from codegen.errors import SourceError
from tasks import remote


@pytest.mark.parametrize("text, hosts", [
    ("build1", [("build1", 3632, 4, False)]),
    ("127.0.0.1:4000/8", [("127.0.0.1", 4000, 8, False)]),
    ("localhost/3 h2,lzo", [("localhost", 3632, 3, False), ("h2", 3632, 4, False)]),
    ("--randomize h1:1234/2,lzo,cpp  user@h3/6", [("h1", 1234, 2, False), ("h3", 22, 6, True)]),
    ("[::1]:3700/2", [("::1", 3700, 2, False)]),
    ("@h4:/usr/bin/distccd", [("h4", 22, 4, True)]),
])
def test_host_lists(text, hosts):
    assert [(h.name, h.port, h.limit, h.ssh) for h in remote.parse_hosts(text)] == hosts


@pytest.mark.parametrize("text, col, fragment", [
    ("h1 127.0.0.1:notaport", 4, "'127.0.0.1:notaport' is not a distcc host"),
    ("h1/0", 1, "job limit must be at least 1"),
    ("ok h:99999", 4, "port 99999 is out of range"),
    ("h1;h2", 1, "is not a distcc host"),
    ("--randomize", 1, "names no host"),
])
def test_malformed_host_lists_point_at_the_word(text, col, fragment):
    with pytest.raises(SourceError) as e:
        remote.parse_hosts(text)
    message = str(e.value)
    assert message.startswith(f"TCORE_DISTCC_HOSTS:1:{col}: error:"), message
    assert fragment in message
    assert message.splitlines()[1].strip() == text
    assert message.splitlines()[2].index("^") == 4 + col - 1  # the caret under the word


@pytest.mark.parametrize("url", ["redis://cache:6379", "redis://10.0.0.5:6380/2", "redis://user:pw@cache",
                                 "redis+unix:/run/redis.sock", "http://cache.example:8080/ccache"])
def test_cache_urls(url):
    assert remote.check_cache_url(url) == url


@pytest.mark.parametrize("url, fragment", [
    ("ftp://cache:21", "must be redis://"),
    ("cache:6379", "must be redis://"),
    ("redis://cache:port", "the port is not a number"),
    ("redis://cache:70000", "the port is not a number"),
    ("redis://:6379", "names no host"),
    ("redis://cache:6379/db", "a Redis database is a number"),
    ("redis+unix:", "names no socket"),
])
def test_malformed_cache_urls(url, fragment):
    with pytest.raises(SourceError) as e:
        remote.check_cache_url(url)
    assert str(e.value).startswith("TCORE_REMOTE_CACHE:1:") and fragment in str(e.value)


def test_settings_from_environment():
    s = remote.settings_from_env({"TCORE_REMOTE_CACHE": " redis://c:1 ", "TCORE_DISTCC_HOSTS": "a b/2"})
    assert s.cache_url == "redis://c:1" and [h.limit for h in s.hosts] == [4, 2] and s.hosts_text == "a b/2"
    assert remote.settings_from_env({}) == remote.RemoteSettings()


@pytest.fixture
def listener():
    """A TCP port that accepts connections (stands in for a distccd or Redis)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    stop = threading.Event()

    def serve():
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                server.accept()[0].close()
            except OSError:
                pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield server.getsockname()[1]
    stop.set()
    t.join()
    server.close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_local_build_gets_only_base_dir():
    b = remote.build_environment(remote.RemoteSettings(), "/src/tcore", "/usr/bin/ccache", 2, None)
    assert b.env == {"CCACHE_BASEDIR": "/src/tcore"} and b.jobs is None and b.notes == ()
    assert remote.build_environment(remote.RemoteSettings(), "/src", None, 2, 3).env == {}


def test_reachable_cache_and_hosts(listener):
    settings = remote.settings_from_env({"TCORE_REMOTE_CACHE": f"redis://127.0.0.1:{listener}",
                                         "TCORE_DISTCC_HOSTS": f"127.0.0.1:{listener}/3 127.0.0.1:{listener}/5"})
    b = remote.build_environment(settings, "/src", "/usr/bin/ccache", 2, None)
    assert b.env == {"CCACHE_BASEDIR": "/src", "CCACHE_REMOTE_STORAGE": f"redis://127.0.0.1:{listener}",
                     "DISTCC_HOSTS": settings.hosts_text, "CCACHE_PREFIX": "distcc"}
    assert b.jobs == 3 + 5 + 2  # remote slots plus the local cores
    assert b.distcc and b.remote_cache
    assert remote.build_environment(settings, "/src", "/usr/bin/ccache", 2, 4).jobs == 4  # MAX_JOBS wins
    plain = remote.build_environment(settings, "/src", "/usr/bin/distcc", 2, None)
    assert "CCACHE_PREFIX" not in plain.env and plain.env["DISTCC_HOSTS"] == settings.hosts_text
    assert any("needs ccache" in n for n in plain.notes)


def test_unreachable_cache_and_hosts_are_warnings(listener):
    down = closed_port()
    settings = remote.settings_from_env({"TCORE_REMOTE_CACHE": f"redis://127.0.0.1:{down}",
                                         "TCORE_DISTCC_HOSTS": f"127.0.0.1:{down} 127.0.0.1:{down}/2"})
    b = remote.build_environment(settings, "/src", "/usr/bin/ccache", 2, None)
    assert b.env == {"CCACHE_BASEDIR": "/src"} and b.jobs is None and not b.distcc and not b.remote_cache
    assert any("remote cache" in n and "does not answer" in n for n in b.notes)
    assert any("no distcc host answers" in n and "compiling locally" in n for n in b.notes)
    # one host of two down: the other is used, and the job count counts its slots only
    half = remote.settings_from_env({"TCORE_DISTCC_HOSTS": f"127.0.0.1:{down}/8 127.0.0.1:{listener}/3"})
    b = remote.build_environment(half, "/src", "/usr/bin/ccache", 2, None)
    assert b.distcc and b.jobs == 3 + 2 and any("hosts down" in n for n in b.notes)


def test_distcc_without_a_launcher_is_a_warning(listener):
    settings = remote.settings_from_env({"TCORE_DISTCC_HOSTS": f"127.0.0.1:{listener}"})
    b = remote.build_environment(settings, "/src", None, 2, None)
    assert "DISTCC_HOSTS" not in b.env and any("compiling locally" in n for n in b.notes)


def test_cache_use_and_fallback_counting():
    before = {"direct_cache_hit": 5, "preprocessed_cache_hit": 1, "cache_miss": 10, "remote_storage_hit": 0}
    after = {"direct_cache_hit": 50, "preprocessed_cache_hit": 2, "cache_miss": 12, "remote_storage_hit": 40,
             "remote_storage_error": 1}
    use = remote.cache_use(before, after)
    assert (use.hits, use.remote_hits, use.misses, use.remote_errors) == (46, 40, 2, 1)
    assert str(use).startswith("tcore: ccache: 46 of 48 compilations served from the cache (40 from remote")
    lines = ["distcc[12] Warning: failed to distribute a.cpp to 127.0.0.1:1, running locally instead\n",
             "[3/9] Building CXX object x.o\n"]
    assert remote.distcc_fallbacks(lines) == 1


needs_cluster_tools = pytest.mark.skipif(shutil.which("redis-server") is None or shutil.which("distccd") is None,
                                         reason="redis-server and distccd are needed (apt-get install redis-server "
                                                "distcc; CI installs them)")


@needs_cluster_tools
def test_cluster_starts_answers_and_stops(tmp_path):
    import build_cluster

    cluster = build_cluster.start(tmp_path / "c", daemons=2, slots=3)
    try:
        assert len(cluster.daemons) == 2 and cluster.redis is not None
        env = cluster.env()
        assert env["TCORE_REMOTE_CACHE"] == f"redis://127.0.0.1:{cluster.redis.port}"
        assert [h.limit for h in remote.parse_hosts(env["TCORE_DISTCC_HOSTS"])] == [3, 3]
        for s in cluster.services:
            assert remote.probe("127.0.0.1", s.port) is None
        assert build_cluster.load(tmp_path / "c") == cluster
        assert build_cluster.main(["status", "--state", str(tmp_path / "c")]) == 0
        again = build_cluster.start(tmp_path / "c", daemons=1, slots=1, redis=False)  # replaces the first
        for s in cluster.services:
            assert remote.probe("127.0.0.1", s.port) is not None
        cluster = again
    finally:
        cluster.stop()
    assert all(remote.probe("127.0.0.1", s.port) is not None for s in cluster.services)
    assert build_cluster.load(tmp_path / "c") is None


def test_cluster_reports_missing_tools(tmp_path, monkeypatch):
    import build_cluster

    monkeypatch.setattr(build_cluster.shutil, "which", lambda name: None)
    with pytest.raises(build_cluster.ClusterError, match="not installed: redis-server, distccd"):
        build_cluster.start(tmp_path, daemons=1)
