"""tcore.save / tcore.load: tensors, state dicts and checkpoints in the safetensors format
(through the `safetensors` package), never pickle.

What can be saved: one tensor; a mapping of str to tensors (a state_dict: a plain safetensors
file any safetensors reader understands); or a checkpoint, a tree of dicts (any keys of the
kinds below), lists and tuples whose leaves are tensors, None, bools, ints, floats, strs, dtypes,
devices (and numpy scalars, saved as Python numbers), such as {"model": model.state_dict(),
"optimizer": opt.state_dict(), "epoch": 3}: its tensors are the file's tensors, its structure a
JSON document in the file's metadata. Anything else (modules, functions, other objects) is
refused with a TypeError that names where it is: tcore never pickles. Loading refuses files that
are not safetensors (a torch.save zip or pickle says so).

Writes to a path are atomic (a temporary file in the same folder, then os.replace). Every
dtype is kept (bfloat16 too); views are saved as their elements; the keys' order is kept.
"""
from __future__ import annotations

import io
import json
import math
import os
import struct
import tempfile
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np

from . import _C

Tensor = _C.Tensor
_SINGLE = "__tensor__"  # the key of a lone tensor; metadata says it was one
_DTYPE_NAMES = {  # tcore dtype -> safetensors dtype name, numpy dtype of the bytes
    _C.dtype.bool: ("bool", np.bool_), _C.dtype.uint8: ("uint8", np.uint8), _C.dtype.int8: ("int8", np.int8),
    _C.dtype.int16: ("int16", np.int16), _C.dtype.int32: ("int32", np.int32), _C.dtype.int64: ("int64", np.int64),
    _C.dtype.float16: ("float16", np.float16), _C.dtype.float32: ("float32", np.float32),
    _C.dtype.float64: ("float64", np.float64), _C.dtype.bfloat16: ("bfloat16", np.uint16),
}
_FROM_CODE = {  # safetensors' codes in a file -> tcore dtype
    "BOOL": _C.dtype.bool, "U8": _C.dtype.uint8, "I8": _C.dtype.int8, "I16": _C.dtype.int16, "I32": _C.dtype.int32,
    "I64": _C.dtype.int64, "F16": _C.dtype.float16, "F32": _C.dtype.float32, "F64": _C.dtype.float64,
    "BF16": _C.dtype.bfloat16,
}


def _safetensors():
    try:
        import safetensors
    except ImportError as e:  # pragma: no cover - requirements.txt installs it
        raise ImportError("tcore.save/tcore.load need the `safetensors` package (pip install safetensors)") from e
    return safetensors


def _host_array(t: Tensor) -> np.ndarray:
    """The tensor's elements as a contiguous little-endian numpy array (bfloat16 as its bits)."""
    t = t.detach()
    if t.device.type != "cpu":
        t = t.to("cpu")
    if t.dtype == _C.dtype.bfloat16:  # exact: every bfloat16 is a float32 whose low 16 bits are zero
        bits = np.ascontiguousarray(t.float()._numpy_read()).view(np.uint32) >> 16
        return bits.astype(np.uint16)
    a = t.contiguous()._numpy_read()
    return a if a.flags.c_contiguous else a.copy()  # (np.ascontiguousarray would make a 0-dim array 1-dim)


def _tensor_map(obj) -> tuple[OrderedDict, dict]:
    if isinstance(obj, Tensor):
        return OrderedDict([(_SINGLE, obj)]), {"tcore.kind": "tensor"}
    if isinstance(obj, Mapping) and all(isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items()):
        out = OrderedDict(obj.items())
        return out, {"tcore.kind": "state_dict", "tcore.order": json.dumps(list(out))}
    tensors: OrderedDict = OrderedDict()
    tree = _encode(obj, "", tensors)
    return tensors, {"tcore.kind": "tree", "tcore.tree": json.dumps(tree)}


def _leaf_name(path: str, tensors: dict) -> str:
    name = path or "tensor"
    k = 1
    while name in tensors:  # (a path that repeats after the separators: numbered)
        name, k = f"{path}#{k}", k + 1
    return name


def _encode(obj, path: str, tensors: OrderedDict):
    """obj as JSON, its tensors moved into `tensors` under their paths ("optimizer/state/0/exp_avg")."""
    if isinstance(obj, Tensor):
        name = _leaf_name(path, tensors)
        tensors[name] = obj
        return {"tensor": name}
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, float)):
        return {"float": repr(float(obj))} if isinstance(obj, float) and not math.isfinite(obj) else obj
    if isinstance(obj, np.generic) and not isinstance(obj, np.void):
        return _encode(obj.item(), path, tensors)
    if isinstance(obj, _C.dtype):
        return {"dtype": str(obj).split(".")[-1]}
    if isinstance(obj, _C.device):
        return {"device": str(obj)}
    if isinstance(obj, Mapping):
        return {"dict": [[_encode(k, f"{path}/<key>", tensors), _encode(v, f"{path}/{k}".lstrip("/"), tensors)]
                         for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, f"{path}/{i}".lstrip("/"), tensors) for i, v in enumerate(obj)]
        return {"tuple" if isinstance(obj, tuple) else "list": items}
    raise TypeError(f"tcore.save cannot save a {type(obj).__name__} (at {path or 'the top level'}): it saves tensors, "
                    "state dicts and trees of dicts, lists and tuples of tensors, numbers, strs, None, dtypes and "
                    "devices (safetensors; tcore never pickles modules or other objects: save their state_dict())")


def _decode(node, tensors: dict):
    if not isinstance(node, dict):
        return node
    (kind, value), = node.items()
    if kind == "tensor":
        return tensors[value]
    if kind == "float":
        return float(value)
    if kind == "dtype":
        return getattr(_C.dtype, value)
    if kind == "device":
        return _C.device(value)
    if kind == "dict":
        return {_decode_key(k, tensors): _decode(v, tensors) for k, v in value}
    items = [_decode(v, tensors) for v in value]
    return tuple(items) if kind == "tuple" else items


def _decode_key(node, tensors: dict):
    key = _decode(node, tensors)
    return tuple(key) if isinstance(key, list) else key


def _serialize(obj) -> bytes:
    st = _safetensors()
    tensors, metadata = _tensor_map(obj)
    arrays = {k: _host_array(v) for k, v in tensors.items()}
    specs = {k: st.TensorSpec(dtype=_DTYPE_NAMES[tensors[k].dtype][0], shape=list(a.shape),
                              data_ptr=a.ctypes.data, data_len=a.nbytes) for k, a in arrays.items()}
    return bytes(st.serialize(specs, metadata=metadata))


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True) -> None:
    """Saves a tensor or a state_dict to a path or a binary file object (safetensors)."""
    if pickle_module is not None:
        raise TypeError("tcore.save never pickles: pickle_module is not accepted")
    data = _serialize(obj)
    if hasattr(f, "write"):
        f.write(data)
        return
    path = os.fspath(f)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tcore-save-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _metadata(data: bytes) -> dict:
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    return header.get("__metadata__") or {}


def _not_safetensors(data: bytes, name: str) -> str | None:
    if len(data) >= 9:
        (n,) = struct.unpack("<Q", data[:8])
        if n <= len(data) - 8 and data[8:9] == b"{":
            return None
    if data[:4] == b"PK\x03\x04":
        return f"{name} is a zip archive (torch.save's format: pickle inside); tcore.load reads only safetensors files"
    if data[:1] == b"\x80":
        return f"{name} is a pickle; tcore.load never unpickles (it reads only safetensors files)"
    if len(data) < 9:
        return f"{name} is not a safetensors file (too short: {len(data)} bytes)"
    return f"{name} is not a safetensors file (no JSON header of a plausible size)"


def load(f, map_location=None, pickle_module=None, *, weights_only: bool = True, mmap=None, **kwargs):
    """A tensor (if one was saved) or an OrderedDict of tensors, from a path or a binary file
    object; map_location: a device (or its name) to put them on."""
    if pickle_module is not None:
        raise TypeError("tcore.load never unpickles: pickle_module is not accepted")
    if hasattr(f, "read"):
        data, name = f.read(), getattr(f, "name", "the file object")
    else:
        name = os.fspath(f)
        with open(name, "rb") as fh:
            data = fh.read()
    problem = _not_safetensors(data, str(name))
    if problem:
        raise RuntimeError(problem)
    st = _safetensors()
    try:
        entries = st.deserialize(data)
        metadata = _metadata(data)
    except Exception as e:  # safetensors' own error types vary between versions
        raise RuntimeError(f"{name} is not a valid safetensors file: {e}") from None
    tensors = {}
    for key, entry in entries:
        tensors[key] = _to_tensor(entry, key)
    order = json.loads(metadata.get("tcore.order", "null")) or sorted(tensors)
    out = OrderedDict((k, tensors[k]) for k in order if k in tensors)
    out.update((k, v) for k, v in tensors.items() if k not in out)
    if map_location is not None:
        device = map_location if isinstance(map_location, (str, _C.device)) else None
        if device is None:
            raise TypeError("tcore.load: map_location must be a device or a device name")
        out = OrderedDict((k, v.to(device)) for k, v in out.items())
    if metadata.get("tcore.kind") == "tensor" and list(out) == [_SINGLE]:
        return out[_SINGLE]
    if metadata.get("tcore.kind") == "tree":
        return _decode(json.loads(metadata["tcore.tree"]), out)
    return out


def _to_tensor(entry: dict, key: str) -> Tensor:
    code = entry["dtype"]
    if code not in _FROM_CODE:
        raise RuntimeError(f"tcore.load: tensor {key!r} has dtype {code}, which tcore does not have")
    dtype = _FROM_CODE[code]
    shape = list(entry["shape"])
    raw = np.frombuffer(bytes(entry["data"]), dtype=np.dtype(_DTYPE_NAMES[dtype][1]).newbyteorder("<"))
    if dtype == _C.dtype.bfloat16:
        as_float = (raw.astype(np.uint32) << 16).view(np.float32).reshape(shape)
        return _C._from_private_array(np.array(as_float)).to(dtype)
    return _C._from_private_array(np.array(raw.astype(raw.dtype.newbyteorder("=")))).reshape(shape)


def save_to_bytes(obj) -> bytes:
    """The bytes tcore.save writes (for tests and in-memory use)."""
    buf = io.BytesIO()
    save(obj, buf)
    return buf.getvalue()
