"""examples/mnist_mlp.py: its IDX reader, and both models trained on a small slice through
the script's own main() (real MNIST when build/data/mnist holds it, else a generated
dataset in MNIST's format). scripts/bench_train.py runs the same functions on torch."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("mnist_mlp", ROOT / "examples" / "mnist_mlp.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory, example):
    """Real MNIST if it was downloaded, else a small learnable set of the same format."""
    real = example.DEFAULT_DATA
    if all((real / f).exists() for pair in example.FILES.values() for f in pair):
        return real, True
    out = tmp_path_factory.mktemp("mnist")
    subprocess.run([sys.executable, str(ROOT / "examples" / "mnist" / "make_dataset.py"), str(out), "--train", "1200",
                    "--test", "300"], check=True)
    return out, False


def test_read_idx_checks_its_input(example, tmp_path):
    good = tmp_path / "g"
    good.write_bytes(bytes([0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3]) + bytes(range(6)))
    assert example.read_idx(good).tolist() == [[0, 1, 2], [3, 4, 5]]
    bad = tmp_path / "b"
    bad.write_bytes(bytes([0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3]) + bytes(range(5)))
    with pytest.raises(ValueError, match="5 bytes of data, the header says \\[2, 3\\]"):
        example.read_idx(bad)
    bad.write_bytes(b"PK\x03\x04")
    with pytest.raises(ValueError, match="not an unsigned-byte IDX file"):
        example.read_idx(bad)


def test_missing_data_is_one_message(example, tmp_path, capsys):
    assert example.main(["--data", str(tmp_path), "--quiet"]) == 1
    assert "run `python scripts/download_mnist.py" in capsys.readouterr().err


@pytest.mark.parametrize("kind, floor", [("mlp", 0.80), ("cnn", 0.50)])
def test_trains_on_a_slice(tcore, example, data_dir, kind, floor):
    folder, real = data_dir
    tcore.set_num_threads(1)
    try:
        train = example.load_split(folder, "train", 1200 if kind == "mlp" else 640)
        test = example.load_split(folder, "test", 300)
        result = example.run(tcore, kind, train, test, epochs=1, batch_size=32, lr=2e-3, seed=0, quiet=True)
    finally:
        tcore.set_num_threads(2)
    assert result["losses"][0] < 2.3  # below chance level (ln 10)
    assert result["accuracy"] >= floor, result


def test_main_on_a_slice_with_progress_bar(example, data_dir, capsys):
    folder, _ = data_dir
    assert example.main(["--data", str(folder), "--model", "mlp", "--epochs", "1", "--limit", "256"]) == 0
    out = capsys.readouterr().out
    assert "mlp: test accuracy" in out and "target 97%" in out
