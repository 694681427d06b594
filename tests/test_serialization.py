"""tcore.save / tcore.load: safetensors files of tensors and state dicts (every dtype,
views, order kept), atomic writes, torch's safetensors reading our files, and refusals:
no pickle, nothing but tensor maps, clear errors for torch.save files and garbage."""
from __future__ import annotations

import io
import os
import pickle

import numpy as np
import pytest

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips(tcore, tmp_path, dtype):
    t = tcore.tensor(np.arange(-6, 6).reshape(3, 4) * 1.25).to(getattr(tcore, dtype))
    path = tmp_path / "t.safetensors"
    tcore.save(t, path)
    back = tcore.load(path)
    assert isinstance(back, tcore.Tensor) and back.dtype == t.dtype and tuple(back.shape) == (3, 4)
    np.testing.assert_array_equal(back.float().numpy(), t.float().numpy())


def test_state_dict_round_trip(tcore, tmp_path):
    import tcore.nn as nn
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    model(tcore.randn(5, 3))  # move the running statistics
    path = tmp_path / "model.safetensors"
    tcore.save(model.state_dict(), str(path))
    sd = tcore.load(path)
    assert list(sd) == list(model.state_dict())  # order kept
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    fresh.load_state_dict(sd)
    fresh.eval()
    model.eval()
    x = tcore.randn(2, 3)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())
    assert sd["1.num_batches_tracked"].dtype == tcore.int64


def test_views_file_objects_and_scalars(tcore):
    base = tcore.arange(12.0).view(3, 4)
    buf = io.BytesIO()
    tcore.save({"t": base.t(), "row": base[1], "scalar": tcore.tensor(2.5), "empty": tcore.zeros(0, 3)}, buf)
    buf.seek(0)
    out = tcore.load(buf)
    np.testing.assert_array_equal(out["t"].numpy(), base.numpy().T)
    assert out["row"].tolist() == [4.0, 5.0, 6.0, 7.0] and out["scalar"].item() == 2.5
    assert tuple(out["empty"].shape) == (0, 3)


def test_torch_safetensors_reads_our_file(tcore, tmp_path):
    pytest.importorskip("torch")
    from safetensors.torch import load_file
    path = tmp_path / "x.safetensors"
    tcore.save({"w": tcore.arange(6.0).view(2, 3), "b": tcore.ones(2).bfloat16()}, path)
    loaded = load_file(str(path))
    assert loaded["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and str(loaded["b"].dtype) == "torch.bfloat16"


def test_atomic_write_leaves_no_temporary(tcore, tmp_path):
    path = tmp_path / "a.safetensors"
    tcore.save(tcore.ones(2), path)
    tcore.save(tcore.zeros(3), path)  # replaced whole
    assert tcore.load(path).tolist() == [0.0, 0.0, 0.0]
    assert os.listdir(tmp_path) == ["a.safetensors"]
    with pytest.raises(TypeError):
        tcore.save({"a": object()}, path)
    assert tcore.load(path).tolist() == [0.0, 0.0, 0.0]  # a refused save leaves the file alone


def test_checkpoint_trees_round_trip(tcore, tmp_path):
    """(torch's checkpoint idiom: model and optimizer state dicts, numbers, nested containers
    with int and tuple keys; an optimizer resumes from it exactly)"""
    import numpy as np
    model = tcore.nn.Linear(3, 2)
    opt = tcore.optim.Adam(model.parameters(), lr=0.01)
    model(tcore.ones(4, 3)).sum().backward()
    opt.step()
    checkpoint = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3, "best": float("inf"),
                  "nan": float("nan"), "acc": np.float64(0.25), "dtype": tcore.bfloat16, "device": tcore.device("cpu"),
                  "history": [1.5, None, (2, "a", True)], (1, 2): {0: "int key"}, "empty": {}, "tied": model.weight}
    path = tmp_path / "ckpt.safetensors"
    tcore.save(checkpoint, path)
    back = tcore.load(path)
    assert list(back) == list(checkpoint)
    assert (back["epoch"], back["best"], back["acc"], back["dtype"], back["history"], back[(1, 2)], back["empty"]) == \
        (3, float("inf"), 0.25, tcore.bfloat16, [1.5, None, (2, "a", True)], {0: "int key"}, {})
    assert back["nan"] != back["nan"] and str(back["device"]) == "cpu" and isinstance(back["epoch"], int)
    assert back["tied"].tolist() == model.weight.tolist()
    resumed = tcore.optim.Adam(model.parameters(), lr=0.01)
    resumed.load_state_dict(back["optimizer"])
    assert resumed.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    for k, v in opt.state_dict()["state"][0].items():
        assert back["optimizer"]["state"][0][k].tolist() == v.tolist()


@pytest.mark.parametrize("obj, message", [
    ("a module", None),
    ({"epoch": lambda: 3}, "cannot save a function \\(at epoch\\)"),
    ([1, {"m": object()}], "cannot save a object \\(at 1/m\\)"),
])
def test_refuses_what_is_not_a_tree(tcore, obj, message):
    if message is None:
        obj, message = {"model": tcore.nn.Linear(1, 1)}, "cannot save a Linear \\(at model\\).*save their state_dict"
    with pytest.raises(TypeError, match=message):
        tcore.save(obj, io.BytesIO())


def test_refuses_pickle_and_garbage(tcore, tmp_path):
    pickled = tmp_path / "p.pt"
    pickled.write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(RuntimeError, match="is a pickle; tcore.load never unpickles"):
        tcore.load(pickled)
    torch = pytest.importorskip("torch")
    zipped = tmp_path / "z.pt"
    torch.save({"w": torch.ones(2)}, zipped)
    with pytest.raises(RuntimeError, match="zip archive \\(torch.save's format"):
        tcore.load(zipped)
    garbage = tmp_path / "g.bin"
    garbage.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!")
    with pytest.raises(RuntimeError, match="not a safetensors file"):
        tcore.load(garbage)
    truncated = tmp_path / "t.safetensors"
    data = tcore.serialization.save_to_bytes({"w": tcore.ones(100)})
    truncated.write_bytes(data[:-50])
    with pytest.raises(RuntimeError, match="not a valid safetensors file"):
        tcore.load(truncated)
    with pytest.raises(TypeError, match="never pickles"):
        tcore.save(tcore.ones(1), io.BytesIO(), pickle_module=pickle)


def test_map_location(tcore):
    buf = io.BytesIO(tcore.serialization.save_to_bytes({"w": tcore.ones(2)}))
    assert tcore.load(buf, map_location="cpu")["w"].device.type == "cpu"
