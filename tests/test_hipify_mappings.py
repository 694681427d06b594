"""scripts/gen_hipify_mappings.py (AMD's tables -> hipify/mappings.yaml) and the checks that
hipify/mappings.py makes when it loads the data."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hipify.mappings import MappingsError, Target, load, parse, parse_hip_version, resolve

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import gen_hipify_mappings as gen  # noqa: E402

HEADER = "|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|\n|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|\n"


def test_a_row_becomes_an_entry():
    assert gen.parse_row("|`cudaMalloc`| | | | |`hipMalloc`|1.6.0| | | | |", "t") == ("cudaMalloc", ["hipMalloc", "1.6.0"])
    assert gen.parse_row("|`cudaInitDevice`|12.0| | | | | | | | | |", "t") == ("cudaInitDevice", [])
    assert gen.parse_row("|`cudaX`| | | | |`hipX`|1.6|5.0.0| |6.0.0| |", "t") == ("cudaX", ["hipX", "1.6.0", "6.0.0"])
    assert gen.parse_row("|`CUoccupancyB2DSize`| | | | |`void*`| | | | | |", "t") == ("CUoccupancyB2DSize", ["void*"])


def test_a_row_with_the_roc_column():
    row = "|`cublasSgemm`| | | | |`hipblasSgemm`|1.8.2| | | | |`rocblas_sgemm`|1.5.0| | | | |"
    assert gen.parse_row(row, "t") == ("cublasSgemm", ["hipblasSgemm", "1.8.2", "", "rocblas_sgemm", "1.5.0"])
    row = "|`cublasX`| | | | | | | | | | |`rocblas_x`|3.5.0| | | | |"
    assert gen.parse_row(row, "t") == ("cublasX", ["", "", "", "rocblas_x", "3.5.0"])


@pytest.mark.parametrize("row,error", [
    ("|`cudaA`| | | | |`hipA`|one| | | | |", "not a version"),
    ("|`cuda A`| | | | |`hipA`|1.0| | | | |", "not a `name`"),
    ("|`cudaA`| | | |`hipA`|1.0| | | | |", "10 cells"),
    ("| | | | | |`hipA`|1.0| | | | |", "no CUDA name"),
])
def test_bad_rows_are_errors_with_their_place(row, error):
    with pytest.raises(gen.TableError, match=error) as e:
        gen.parse_row(row, "RUNTIME.md:7")
    assert "RUNTIME.md:7" in str(e.value)


def test_a_table_file(tmp_path):
    t = tmp_path / "CUDA_Runtime_API_functions_supported_by_HIP.md"
    t.write_text("# title\n\n## 1. Device\n\n" + HEADER + "|`cudaA`| | | | |`hipA`|1.6.0| | | | |\n"
                 "|`cudaB`|11.0| | | | | | | | | |\n\n## 2. Other\n\n" + HEADER + "|`cudaA`| | | | |`hipA`|1.6.0| | | | |\n")
    assert gen.parse_table(t) == {"cudaA": ["hipA", "1.6.0"], "cudaB": []}
    t.write_text(HEADER + "|`cudaA`| | | | |`hipA`|1.6.0| | | | |\n|`cudaA`| | | | |`hipZ`|1.6.0| | | | |\n")
    with pytest.raises(gen.TableError, match="twice"):
        gen.parse_table(t)


def test_generated_data_round_trips_through_the_loader(tmp_path):
    tables = tmp_path / "tables"
    tables.mkdir()
    for stem in gen.KINDS:
        (tables / f"{stem}_supported_by_HIP.md").write_text(HEADER)
    (tables / "CUDA_Runtime_API_functions_supported_by_HIP.md").write_text(
        HEADER + "|`cudaMalloc`| | | | |`hipMalloc`|1.6.0| | | | |\n|`cudaNew`| | | | |`hipNew`|6.1.0| | | | |\n"
                 "|`cudaGone`| | | | |`hipGone`|1.6.0| | |4.0.0| |\n|`cudaNone`|12.0| | | | | | | | | |\n")
    (tables / "CUBLAS_API_supported_by_HIP_and_ROC.md").write_text(
        "|`cublasSgemm`| | | | |`hipblasSgemm`|1.8.2| | | | |`rocblas_sgemm`|1.5.0| | | | |\n")
    manual = tmp_path / "manual.yaml"
    manual.write_text("headers:\n  cublas_v2.h: {kind: blas, hip: hipblas/hipblas.h, roc: rocblas/rocblas.h}\n"
                      "identifiers:\n  cub:\n    cub: [hipcub]\ncuda_like: ['cuda[A-Z]']\n")
    text, notes = gen.generate(tables, manual)
    assert '    cudaMalloc: [hipMalloc, "1.6.0"]\n' in text and "    cudaNone: []\n" in text
    assert '    cublasSgemm: [hipblasSgemm, "1.8.2", "", rocblas_sgemm, "1.5.0"]\n' in text
    data = parse(text.encode(), "gen.yaml")
    m = resolve(data, Target((5, 2, 0)), "d")
    assert m.identifiers == {"cudaMalloc": "hipMalloc", "cublasSgemm": "hipblasSgemm", "cub": "hipcub"}
    assert m.missing == {"cudaNew": "no HIP equivalent (HIP 5.2)", "cudaGone": "no HIP equivalent (HIP 5.2)",
                         "cudaNone": "no HIP equivalent"}
    assert resolve(data, Target((6, 1, 0)), "d").identifiers["cudaNew"] == "hipNew"
    assert resolve(data, Target((3, 0, 0)), "d").identifiers["cudaGone"] == "hipGone"
    roc = resolve(data, Target(roc=True), "d")
    assert roc.identifiers["cublasSgemm"] == "rocblas_sgemm" and roc.header("cublas_v2.h") == ("rocblas/rocblas.h", True)
    assert gen.main(["--tables", str(tables), "--manual", str(manual), "--output", str(tmp_path / "m.yaml")]) == 0
    assert (tmp_path / "m.yaml").read_text() == text
    assert gen.main(["--tables", str(tables), "--manual", str(manual), "--output", str(tmp_path / "m.yaml"),
                     "--check"]) == 0


@pytest.mark.skipif(not gen.TABLES.is_dir(), reason="AMD's tables are not beside the repository (../shared/data)")
def test_the_committed_data_is_what_the_tables_give():
    text, _ = gen.generate(gen.TABLES, gen.MANUAL)
    assert gen.OUTPUT.read_text() == text, "hipify/mappings.yaml is stale: run scripts/gen_hipify_mappings.py"
    assert text.count("\n") > 8000


def test_the_data_covers_the_families_the_issue_names():
    m = load(Target())
    for cuda, hip in [("nvrtcCreateProgram", "hiprtcCreateProgram"), ("__nv_bfloat16", "hip_bfloat16"),
                      ("cudaTextureObject_t", "hipTextureObject_t"), ("cudaGraphLaunch", "hipGraphLaunch"),
                      ("cudaMallocAsync", "hipMallocAsync"), ("cudaMemPool_t", "hipMemPool_t"),
                      ("CUBLAS_OP_T", "HIPBLAS_OP_T"), ("CUSPARSE_INDEX_32I", "HIPSPARSE_INDEX_32I")]:
        assert m.identifier(cuda) == hip, cuda


@pytest.mark.parametrize("text,error", [
    (b"format: 1\n", "not a format 2"),
    (b"format: 2\nidentifiers: {magic: {}}\n", "unknown kind"),
    (b"format: 2\nidentifiers: {runtime: {cudaA: [hipA, '1.x']}}\n", "bad field 1"),
    (b"format: 2\nidentifiers: {runtime: {cudaA: [hip A]}}\n", "bad field 0"),
    (b"format: 2\nheaders: {a.h: {kind: runtime}}\nidentifiers: {}\n", "needs hip"),
    (b"format: 2\nextra: 1\nidentifiers: {}\n", "unknown keys"),
    (b"format: [\n", "not valid YAML"),
])
def test_the_loader_checks_the_data(text, error):
    with pytest.raises(MappingsError, match=error):
        parse(text, "m.yaml")


@pytest.mark.parametrize("text,expected", [("5.2", (5, 2, 0)), ("6.1.2", (6, 1, 2))])
def test_hip_version_argument(text, expected):
    assert parse_hip_version(text) == expected


@pytest.mark.parametrize("text", ["5", "five.2", "5.2.3.4", "-1.2", "99999.1"])
def test_bad_hip_version_argument(text):
    with pytest.raises(ValueError, match="expected MAJOR.MINOR"):
        parse_hip_version(text)


SMALL = b"format: 2\nidentifiers:\n  runtime:\n    cudaMalloc: [hipMalloc, '1.6.0']\n"


def test_the_checked_data_is_kept_as_json_and_used_until_the_yaml_changes(tmp_path, monkeypatch):
    from hipify import mappings

    path = tmp_path / "m.yaml"
    path.write_bytes(SMALL)
    assert load(Target(), str(path)).identifiers == {"cudaMalloc": "hipMalloc"}
    cache = tmp_path / "__pycache__" / "m.yaml.json"
    assert cache.is_file()
    mappings._parsed.cache_clear()
    load.cache_clear()
    monkeypatch.setattr(mappings, "parse", lambda *a: pytest.fail("parsed the YAML although the cache is current"))
    assert load(Target(), str(path)).identifiers == {"cudaMalloc": "hipMalloc"}
    monkeypatch.undo()
    path.write_bytes(SMALL.replace(b"hipMalloc", b"hipMallocX"))  # same size class, other bytes: parsed again
    mappings._parsed.cache_clear()
    load.cache_clear()
    assert load(Target(), str(path)).identifiers == {"cudaMalloc": "hipMallocX"}


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"format": 1, "sha1": 3, "data": []}',
                                    b'[1, 2]', b"\xff\xfe"])
def test_a_damaged_cache_is_ignored_and_rewritten(tmp_path, damage):
    from hipify import mappings

    path = tmp_path / "m.yaml"
    path.write_bytes(SMALL)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.yaml.json").write_bytes(damage)
    mappings._parsed.cache_clear()
    load.cache_clear()
    assert load(Target(), str(path)).identifiers == {"cudaMalloc": "hipMalloc"}
    assert b'"sha1"' in (tmp_path / "__pycache__" / "m.yaml.json").read_bytes()


def test_a_cache_that_passes_for_current_but_is_not_falls_back_to_the_yaml(tmp_path):
    import hashlib
    import json

    from hipify import mappings

    path = tmp_path / "m.yaml"
    path.write_bytes(SMALL)
    (tmp_path / "__pycache__").mkdir()
    bad = {"format": mappings.CACHE_FORMAT, "sha1": hashlib.sha1(SMALL).hexdigest(), "data": {"identifiers": 7}}
    (tmp_path / "__pycache__" / "m.yaml.json").write_text(json.dumps(bad))
    mappings._parsed.cache_clear()
    load.cache_clear()
    assert load(Target(), str(path)).identifiers == {"cudaMalloc": "hipMalloc"}


def test_a_read_only_folder_means_no_cache(tmp_path):
    import os

    from hipify import mappings

    path = tmp_path / "m.yaml"
    path.write_bytes(SMALL)
    os.chmod(tmp_path, 0o555)
    try:
        mappings._parsed.cache_clear()
        load.cache_clear()
        assert load(Target(), str(path)).identifiers == {"cudaMalloc": "hipMalloc"}
    finally:
        os.chmod(tmp_path, 0o755)
    assert os.geteuid() == 0 or not (tmp_path / "__pycache__").exists()


def test_the_data_digest_covers_the_translator_code(tmp_path, monkeypatch):
    from hipify import mappings

    for name in ("mappings.yaml", *mappings.TRANSLATOR):
        (tmp_path / name).write_text("x")
    monkeypatch.setattr(mappings, "DATA", tmp_path / "mappings.yaml")
    before = mappings.data_digest(str(tmp_path / "mappings.yaml"))
    (tmp_path / "rules.py").write_text("xy")  # a new rule: every translation is stale
    assert mappings.data_digest(str(tmp_path / "mappings.yaml")) != before
