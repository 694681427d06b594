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
dtype is kept (bfloat16 too); the keys' order is kept; requires_grad and Parameters come back
as they were saved. Each tensor is saved as its elements (a plain safetensors entry), and tensors
that share memory (views of one tensor, one tensor under two keys) are recorded in the metadata,
so that tcore.load gives them back sharing memory again, as torch.load does.
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
_RESERVED = "__metadata__"  # safetensors' header key: never a tensor's name
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
        bits = np.array(t.float()._numpy_read(), order="C").view(np.uint32) >> 16
        return np.array(bits, dtype=np.uint16).reshape(tuple(t.shape))  # (a 0-dim result is a numpy scalar)
    a = t.contiguous()._numpy_read()
    return a if a.flags.c_contiguous else a.copy()  # (np.ascontiguousarray would make a 0-dim array 1-dim)


def _tensor_map(obj) -> tuple[OrderedDict, dict]:
    if isinstance(obj, Tensor):
        return OrderedDict([(_SINGLE, obj)]), {"tcore.kind": "tensor"}
    if (isinstance(obj, Mapping) and _RESERVED not in obj
            and all(isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items())):
        out = OrderedDict(obj.items())
        return out, {"tcore.kind": "state_dict", "tcore.order": json.dumps(list(out))}
    tensors: OrderedDict = OrderedDict()
    tree = _encode(obj, "", tensors)
    return tensors, {"tcore.kind": "tree", "tcore.tree": json.dumps(tree)}


def _leaf_name(path: str, tensors: dict) -> str:
    name = path or "tensor"
    k = 1
    while name in tensors or name == _RESERVED:  # (a path that repeats after the separators: numbered)
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


def _tensor_flags(tensors: dict) -> dict:
    """The metadata that restores requires_grad and Parameters: the names of each kind."""
    from .nn.parameter import Parameter
    meta = {}
    for key, test in (("tcore.requires_grad", lambda t: t.requires_grad),
                      ("tcore.parameters", lambda t: isinstance(t, Parameter))):
        names = [k for k, t in tensors.items() if test(t)]
        if names:
            meta[key] = json.dumps(names)
    return meta


def _aliases(tensors: dict) -> dict:
    """The metadata that restores shared memory: for each CPU storage that two or more of the tensors
    (same dtype, not empty) view, [extent, [name, offset, shape, stride], ...]; a tensor saved twice
    (the same object) is [name, first name]."""
    groups: dict = {}
    first_of: dict[int, str] = {}
    for name, t in tensors.items():
        if t.device.type != "cpu" or t.numel() == 0:
            continue
        if id(t) in first_of:
            groups[(t._storage_ptr(), t.dtype)].append([name, first_of[id(t)]])
            continue
        first_of[id(t)] = name
        groups.setdefault((t._storage_ptr(), t.dtype), []).append(
            [name, t.storage_offset(), list(t.shape), list(t.stride())])
    out = []
    for entries in groups.values():
        if len(entries) < 2:
            continue
        extent = max(e[1] + sum((n - 1) * st for n, st in zip(e[2], e[3])) + 1 for e in entries if len(e) == 4)
        out.append([extent, *entries])
    return {"tcore.aliases": json.dumps(out)} if out else {}


def _restore(tensors: dict, metadata: dict) -> None:
    """Undoes _tensor_flags and _aliases on the loaded tensors (in place)."""
    for extent, *entries in json.loads(metadata.get("tcore.aliases", "[]")):
        first = tensors[entries[0][0]]
        storage = _C.zeros([extent], dtype=first.dtype)
        for entry in entries:
            if len(entry) == 2:
                tensors[entry[0]] = tensors[entry[1]]
                continue
            name, offset, shape, stride = entry
            # the elements go to their storage positions by index (a view may hold one position
            # several times, as an expanded one does, which copy_ into it refuses)
            positions = np.full(shape, offset, dtype=np.int64)
            for dim, (n, st) in enumerate(zip(shape, stride)):
                along = [n if d == dim else 1 for d in range(len(shape))]
                positions += (np.arange(n, dtype=np.int64) * st).reshape(along)
            storage[_C._from_private_array(positions.reshape(-1))] = tensors[name].reshape(-1)
            tensors[name] = storage.as_strided(shape, stride, offset)
    for name in json.loads(metadata.get("tcore.requires_grad", "[]")):
        tensors[name].requires_grad_(True)
    params = json.loads(metadata.get("tcore.parameters", "[]"))
    if params:
        from .nn.parameter import Parameter
        made: dict[int, Tensor] = {}
        for name in params:
            t = tensors[name]
            tensors[name] = made.setdefault(id(t), Parameter(t, requires_grad=t.requires_grad))


def _serialize(obj) -> bytes:
    st = _safetensors()
    tensors, metadata = _tensor_map(obj)
    metadata.update(_tensor_flags(tensors))
    metadata.update(_aliases(tensors))
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
    if not os.path.isdir(folder):
        raise RuntimeError(f"Parent directory {folder} does not exist.")
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
    _restore(tensors, metadata)
    order = json.loads(metadata.get("tcore.order", "null")) or sorted(tensors)
    out = OrderedDict((k, tensors[k]) for k in order if k in tensors)
    out.update((k, v) for k, v in tensors.items() if k not in out)
    if map_location is not None:
        out = OrderedDict((k, _map_location(v, map_location)) for k, v in out.items())
    if metadata.get("tcore.kind") == "tensor" and list(out) == [_SINGLE]:
        return out[_SINGLE]
    if metadata.get("tcore.kind") == "tree":
        return _decode(json.loads(metadata["tcore.tree"]), out)
    return out


def _map_location(t: Tensor, map_location) -> Tensor:
    """t (loaded on the CPU) where map_location says, as torch.load's: a device or its name, a dict
    mapping the saved location ('cpu') to a device, or a function (tensor, 'cpu') -> tensor (None:
    as it is)."""
    if callable(map_location):
        moved = map_location(t, "cpu")
        return t if moved is None else moved
    if isinstance(map_location, Mapping):
        map_location = map_location.get("cpu", "cpu")
    if isinstance(map_location, str):
        map_location = _C.device(map_location)
    if not isinstance(map_location, _C.device):
        raise TypeError("tcore.load: map_location must be a device, a device name, a dict of them or a function")
    return t.to(map_location)


def _to_tensor(entry: dict, key: str) -> Tensor:
    code = entry["dtype"]
    if code not in _FROM_CODE:
        raise RuntimeError(f"tcore.load: tensor {key!r} has dtype {code}, which tcore does not have")
    dtype = _FROM_CODE[code]
    shape = list(entry["shape"])
    raw = np.frombuffer(bytes(entry["data"]), dtype=np.dtype(_DTYPE_NAMES[dtype][1]).newbyteorder("<"))
    if dtype == _C.dtype.bfloat16:
        as_float = (raw.astype(np.uint32) << 16).view(np.float32)
        return _C._from_private_array(np.array(as_float)).to(dtype).reshape(shape)
    return _C._from_private_array(np.array(raw.astype(raw.dtype.newbyteorder("=")))).reshape(shape)


def save_to_bytes(obj) -> bytes:
    """The bytes tcore.save writes (for tests and in-memory use)."""
    buf = io.BytesIO()
    save(obj, buf)
    return buf.getvalue()
