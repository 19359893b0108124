"""The console entry point, run as a user would."""
import csv
import re
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import make_moons

from sipkl import IKLClassifier
from sipkl.apps.cli import main, read_csv
from sipkl.persistence import load_model


def run(*args):
    return subprocess.run([sys.executable, "-m", "sipkl.apps.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_help():
    out = run("--help")
    assert out.returncode == 0 and "demo" in out.stdout


def test_demo_small():
    out = run("demo", "--n-train", "80", "--n-test", "200", "--quiet")
    assert out.returncode == 0, out.stderr
    assert "learned scales" in out.stdout and "SVC + GridSearchCV" in out.stdout
    assert re.search(r"best C = [\d.e+-]+, gamma = [\d.e+-]+\)", out.stdout), out.stdout
    assert "np.float64" not in out.stdout


def test_bad_option_exits_with_usage():
    out = run("demo", "--C", "-1")
    assert out.returncode == 2 and "--C" in out.stderr


# -- fit / predict / plot / bench --------------------------------------------------------
COMMANDS = ("fit", "predict", "plot", "demo", "bench")


@pytest.fixture(scope="module")
def moons_csv(tmp_path_factory):
    """40 labelled points ("yes"/"no") in a CSV with a header row."""
    X, y = make_moons(40, noise=0.2, random_state=0)
    path = tmp_path_factory.mktemp("data") / "train.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["a", "b", "label"])
        writer.writerows([[a, b, "yes" if t else "no"] for (a, b), t in zip(X, y)])
    return path, X, np.where(y == 1, "yes", "no")


def test_fit_predict_plot_round_trip(moons_csv, tmp_path):
    path, X, y = moons_csv
    model, run_file = tmp_path / "model.json", tmp_path / "run.json"
    out = run("fit", str(path), "--target", "label", "--method", "ikl", "--oracle", "dc",
              "--C", "10", "--out", str(model), "--run", str(run_file))
    assert out.returncode == 0, out.stderr
    assert "IKLClassifier on 40 points × 2 features: certified_optimal" in out.stdout
    assert "features standardized" in out.stdout
    clf = load_model(model)
    assert clf[-1].C == 10.0 and clf[-1].oracle == "dc"
    np.testing.assert_allclose(clf[0].mean_, X.mean(0))  # the training data's scaler

    predictions = tmp_path / "predictions.csv"
    out = run("predict", str(model), str(path), "--target", "label", "--out", str(predictions))
    assert out.returncode == 0, out.stderr
    lines = predictions.read_text().splitlines()
    assert lines[0] == "prediction" and lines[1:] == list(clf.predict(X))
    assert np.mean(np.array(lines[1:]) == y) > 0.9

    out = run("plot", str(run_file), "--out", str(tmp_path / "convergence.png"))
    assert out.returncode == 0, out.stderr
    for kind in ("weights", "scales"):  # the same command, in this process
        assert main(["plot", str(model), "--kind", kind,
                     "--out", str(tmp_path / f"{kind}.png")]) == 0
    for name in ("convergence.png", "weights.png", "scales.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_file_is_one_line_without_traceback(tmp_path):
    out = run("fit", str(tmp_path / "missing.csv"), "--target", "label")
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        f"sipkl fit: error: No such file or directory: {tmp_path / 'missing.csv'}"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_of_every_command(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: sipkl {command}")


def error_of(argv, capsys) -> str:
    """The one-line message of a failing command (exit status 1)."""
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_data_errors(moons_csv, tmp_path, capsys):
    path = str(moons_csv[0])
    assert "no column 'nope' (column names: a, b, label)" in error_of(
        ["fit", path, "--target", "nope"], capsys)
    assert "column index 7 out of range" in error_of(["fit", path, "--target", "7"], capsys)
    assert "name the target column with --target" in error_of(["fit", path], capsys)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b,label\n1,2,yes\n3,no\n")
    assert "row 3 has 2 fields, expected 3" in error_of(["fit", str(ragged), "--target",
                                                         "label"], capsys)
    text = tmp_path / "text.csv"
    text.write_text("a,b,label\n1,x,yes\n3,4,no\n")
    assert "row 2, column 'b': 'x' is not a number" in error_of(
        ["fit", str(text), "--target", "-1"], capsys)
    npz = tmp_path / "data.npz"
    np.savez(npz, features=np.zeros((3, 2)))
    assert "no array 'X' (arrays: features)" in error_of(["fit", str(npz)], capsys)
    not_json = tmp_path / "model.json"
    not_json.write_text("{")
    assert "is not valid JSON" in error_of(["predict", str(not_json), path], capsys)
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}')
    assert "not a sipkl model, run or checkpoint" in error_of(
        ["plot", str(other), "--out", str(tmp_path / "x.png")], capsys)


def test_a_csv_without_header_and_with_string_labels_keeps_every_row(moons_csv, tmp_path,
                                                                     capsys):
    """The first row of numbers and a label "yes"/"no" is data, not a header."""
    _, X, y = moons_csv
    path = tmp_path / "no_header.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([[a, b, t] for (a, b), t in zip(X, y)])
    Xr, yr = read_csv(path, "-1")
    np.testing.assert_array_equal(Xr, X)
    assert list(yr) == list(y)
    assert main(["fit", str(path), "--target", "2", "--oracle", "grid", "--max-iter", "2"]) == 0
    assert f"on {len(X)} points × 2 features" in capsys.readouterr().out


def test_option_errors(moons_csv, tmp_path, capsys):
    path = str(moons_csv[0])
    rng = np.random.default_rng(0)
    regression = tmp_path / "regression.npz"
    np.savez(regression, X=rng.normal(size=(20, 2)), y=rng.normal(size=20))
    assert "method 'ikl' does classification only" in error_of(
        ["fit", str(regression), "--method", "ikl"], capsys)
    assert "method 'nkrr' does regression only" in error_of(
        ["fit", path, "--target", "label", "--method", "nkrr"], capsys)
    assert "--C does not apply to greedy" in error_of(
        ["fit", str(regression), "--method", "greedy", "--C", "1"], capsys)
    with pytest.raises(SystemExit) as exit_:  # usage errors are argparse's: status 2
        main(["fit", path, "--method", "svm"])
    assert exit_.value.code == 2 and "invalid choice: 'svm'" in capsys.readouterr().err


def test_fit_standardizes_by_default_and_predict_drops_the_target(moons_csv, tmp_path,
                                                                   capsys):
    """Standardized, the command-line fit does not depend on the units of the features: the
    same file with the features × 1000 gives the same predictions; --no-standardize keeps the
    raw features (a bare estimator, the same as fitting it in Python)."""
    path, X, y = moons_csv
    scaled = tmp_path / "scaled.csv"
    with open(scaled, "w", newline="") as f:
        csv.writer(f).writerows([["a", "b", "label"]] + [[a * 1000, b * 1000, t]
                                                         for (a, b), t in zip(X, y)])
    features = tmp_path / "features.csv"
    np.savetxt(features, X * 1000, delimiter=",")
    predictions = {}
    for name, data in (("unit", path), ("scaled", scaled)):
        model = tmp_path / f"{name}.json"
        assert main(["fit", str(data), "--target", "label", "--out", str(model)]) == 0
        capsys.readouterr()
        # the labelled file itself, without --target: the model's target column is dropped
        assert main(["predict", str(model), str(scaled if name == "scaled" else path)]) == 0
        out = capsys.readouterr()
        assert "column 'label' left out" in out.err
        predictions[name] = out.out.split()
    assert predictions["unit"] == predictions["scaled"]
    assert main(["predict", str(tmp_path / "scaled.json"), str(features)]) == 0
    out = capsys.readouterr()
    assert out.out.split() == predictions["scaled"] and out.err == ""

    raw = tmp_path / "raw.json"
    assert main(["fit", str(path), "--target", "label", "--no-standardize", "--out",
                 str(raw)]) == 0
    assert "features used as they are" in capsys.readouterr().out
    clf = load_model(raw)
    expected = IKLClassifier(random_state=0).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(X), expected.decision_function(X))


@pytest.mark.parametrize("method, task", [("greedy", "regression"), ("nkrr", "regression"),
                                          ("fsam", "classification"),
                                          ("pairwise", "classification")])
def test_every_method_fits_and_saves(method, task, moons_csv, tmp_path, capsys):
    path, X, _ = moons_csv
    if task == "regression":
        data = tmp_path / "data.npz"
        np.savez(data, X=X, y=X[:, 0] ** 2 + X[:, 1])
        argv = ["fit", str(data), "--method", method]
    else:
        argv = ["fit", str(path), "--target", "label", "--method", method, "--oracle", "grid"]
    model = tmp_path / "model.json"
    assert main(argv + ["--max-iter", "3", "--out", str(model)]) == 0, capsys.readouterr().err
    assert "training" in capsys.readouterr().out
    assert load_model(model).predict(X).shape == (len(X),)
