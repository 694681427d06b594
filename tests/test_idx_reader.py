"""The C++ IDX reader (csrc/data/mnist.cpp) on good, truncated and malformed files."""
from __future__ import annotations

import struct

import numpy as np
import pytest


def idx_bytes(array: np.ndarray, code: int = 0x08) -> bytes:
    header = struct.pack(">BBBB", 0, 0, code, array.ndim) + b"".join(struct.pack(">I", d) for d in array.shape)
    return header + array.astype(">" + array.dtype.str[1:] if array.dtype.itemsize > 1 else array.dtype).tobytes()


@pytest.mark.parametrize("dtype,code", [(np.uint8, 0x08), (np.int8, 0x09), (np.int16, 0x0B), (np.int32, 0x0C),
                                        (np.float32, 0x0D), (np.float64, 0x0E)])
def test_reads_every_type(tcore, tmp_path, dtype, code):
    a = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    p = tmp_path / "a.idx"
    p.write_bytes(idx_bytes(a, code))
    t = tcore._C._read_idx(str(p))
    assert t.shape == (2, 3, 4)
    np.testing.assert_array_equal(t.numpy(), a)


@pytest.mark.parametrize("data,message", [
    (b"", "too short for an IDX header"),
    (b"\x01\x02\x08\x01\x00\x00\x00\x01x", "bad magic number"),
    (b"\x00\x00\x07\x01\x00\x00\x00\x01x", "unknown type code"),
    (b"\x00\x00\x08\x02\x00\x00\x00\x02", "truncated header"),
    (b"\x00\x00\x08\x01\x00\x00\x00\x05abc", "truncated"),
    (b"\x00\x00\x08\x01\x00\x00\x00\x02abc", "does not match its header"),
    (b"\x00\x00\x08\x00", "at least one dimension"),
])
def test_malformed_files(tcore, tmp_path, data, message):
    p = tmp_path / "bad.idx"
    p.write_bytes(data)
    with pytest.raises(ValueError, match=message) as info:
        tcore._C._read_idx(str(p))
    assert "bad.idx" in str(info.value)


def test_missing_file(tcore, tmp_path):
    with pytest.raises(ValueError, match="cannot open"):
        tcore._C._read_idx(str(tmp_path / "nope"))
