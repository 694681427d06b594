"""The CPU allocator (csrc/core/CPUAllocator.cpp): freed blocks are reused by size class,
bounded by TCORE_CPU_CACHE_MB; large blocks are 2 MiB aligned (transparent huge pages);
empty_cache() gives them back; values are never carried from one tensor to the next as
anything but uninitialized memory (empty), and zeros/ones are still zeros/ones."""
import subprocess
import sys

import pytest

tcore = pytest.importorskip("tcore")


def test_a_freed_block_is_reused():
    tcore.cpu.empty_cache()
    a = tcore.empty(3 << 20, dtype=tcore.uint8)  # 3 MiB: a 4 MiB block
    ptr = a.data_ptr()
    assert ptr % (2 << 20) == 0  # huge-page aligned
    before = tcore.cpu.memory_stats()
    del a
    after_free = tcore.cpu.memory_stats()
    assert after_free["cached_bytes"] >= before["cached_bytes"] + (4 << 20)
    b = tcore.empty((4 << 20) - 100, dtype=tcore.uint8)  # the same size class
    assert b.data_ptr() == ptr
    assert tcore.cpu.memory_stats()["cache_hits"] == after_free["cache_hits"] + 1
    z = tcore.zeros(1 << 20)
    assert z.sum().item() == 0.0  # fresh values, whatever the reused memory held


def test_small_blocks_are_64_byte_aligned():
    assert all(tcore.empty(n).data_ptr() % 64 == 0 for n in (1, 3, 17, 1000))


def test_empty_cache_gives_blocks_back():
    x = tcore.empty(1 << 20)
    del x
    assert tcore.cpu.memory_stats()["cached_bytes"] > 0
    tcore.cpu.empty_cache()
    assert tcore.cpu.memory_stats()["cached_bytes"] == 0


def test_the_cache_is_bounded_and_can_be_off():
    code = ("import tcore\n"
            "xs = [tcore.empty(1 << 20) for _ in range(8)]\n"  # 4 MiB blocks, 32 MiB
            "del xs\n"
            "s = tcore.cpu.memory_stats()\n"
            "print(s['cached_bytes'], s['cache_limit_bytes'])\n")
    for limit, expected in (("8", 8 << 20), ("0", 0)):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**__import__("os").environ, "TCORE_CPU_CACHE_MB": limit})
        cached, cap = map(int, r.stdout.split())
        assert cap == expected and cached <= cap, r.stderr
