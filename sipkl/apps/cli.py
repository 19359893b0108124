"""Command line: ``sipkl fit | predict | plot | demo | bench``.

::

    sipkl fit train.csv --target label --method ikl --family gaussian_iso --oracle dc \\
        --C 10 --out model.json --run run.json
    sipkl predict model.json test.csv [--target label] [--out predictions.csv]
    sipkl plot model.json --out weights.png [--kind weights|scales]
    sipkl plot run.json --out convergence.png
    sipkl demo
    sipkl bench SUITE

Data are CSV files (a header row is optional, see :func:`is_header`; columns are named by
header or by index, negative from the end) or NPZ files with arrays ``X`` and ``y``. ``fit``
standardizes the features unless ``--no-standardize`` (the scaler is saved with the model and
applied by ``predict``, which also leaves out the model's target column when the file has
it). Bad files, unknown columns and options a method does not take end with a one-line
message on stderr and exit status 1; usage errors exit with status 2.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

#: method -> (classifier, regressor) class names of :data:`sipkl.kernel_learning.names.ESTIMATORS`, and
#: fixed parameters
METHODS = {
    "ikl": (("IKLClassifier", None), {}),
    "fsam": (("AlignmentKernelClassifier", "AlignmentKernelRegressor"), {"master": "fsam"}),
    "alignf": (("AlignmentKernelClassifier", "AlignmentKernelRegressor"), {"master": "alignf"}),
    "greedy": (("GreedyKernelRidgeClassifier", "GreedyKernelRidge"), {}),
    "pairwise": (("PairwiseAlignmentClassifier", None), {}),
    "nkrr": ((None, "NonlinearKernelRidge"), {}),
}


class CLIError(ValueError):
    """A user error: reported in one line, exit status 1."""


# -- data ------------------------------------------------------------------------------
def _column(spec: str, header, n_columns: int, path) -> int:
    if header is not None and spec in header:
        return header.index(spec)
    try:
        index = int(spec)
    except ValueError:
        names = ", ".join(header) if header is not None else "none (no header row)"
        raise CLIError(f"{path}: no column {spec!r} (column names: {names})") from None
    if not -n_columns <= index < n_columns:
        raise CLIError(f"{path}: column index {index} out of range ({n_columns} columns)")
    return index % n_columns


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def is_header(row, target=None) -> bool:
    """Whether the first row of a CSV file is a header: it is when it has the name
    ``target`` (a column name, not an index) or when one of its feature fields (all fields
    but the target's) is not a number. A row of numbers with a label that is not a number
    (``1.5,2,yes``) is data."""
    try:
        index = None if target is None else int(target)
    except ValueError:  # a column name
        return target in row or not all(map(_number, row))
    return not all(_number(cell) for j, cell in enumerate(row)
                   if index not in (j, j - len(row)))


def read_csv(path, target=None):
    """``(X, y)`` from a CSV file; ``y`` is ``None`` without ``target``. Labels that are not
    all numbers are kept as strings. The first row is a header by :func:`is_header`."""
    with open(path, newline="") as f:
        rows = [[cell.strip() for cell in row] for row in csv.reader(f) if any(row)]
    if not rows:
        raise CLIError(f"{path}: no data")
    header = rows.pop(0) if is_header(rows[0], target) else None
    width = len(header) if header is not None else len(rows[0])
    for k, row in enumerate(rows):
        if len(row) != width:
            raise CLIError(f"{path}: row {k + 1 + (header is not None)} has {len(row)} fields, "
                           f"expected {width}")
    if not rows:
        raise CLIError(f"{path}: a header row and no data")
    table = np.array(rows, dtype=object)
    t = None if target is None else _column(target, header, width, path)
    features = [j for j in range(width) if j != t]
    if not features:
        raise CLIError(f"{path}: no feature column besides the target")
    X = np.empty((len(rows), len(features)))
    for out, j in enumerate(features):
        for i, cell in enumerate(table[:, j]):
            try:
                X[i, out] = float(cell)
            except ValueError:
                name = header[j] if header is not None else j
                hint = " (a label column? name it with --target)" if target is None else ""
                raise CLIError(f"{path}: row {i + 1 + (header is not None)}, column "
                               f"{name!r}: {cell!r} is not a number{hint}") from None
    if t is None:
        return X, None
    labels = table[:, t]
    y = labels.astype(float) if all(_number(v) for v in labels) else labels.astype(str)
    return X, y


def read_npz(path, target=None):
    """``(X, y)`` from arrays ``X`` and ``target`` (default ``"y"``) of an NPZ file."""
    with np.load(path, allow_pickle=False) as data:
        if "X" not in data:
            raise CLIError(f"{path}: no array 'X' (arrays: {', '.join(data.files)})")
        X = np.asarray(data["X"], dtype=float)
        key = "y" if target is None else target
        y = data.get(key)
        if target is not None and y is None:
            raise CLIError(f"{path}: no array {target!r} (arrays: {', '.join(data.files)})")
    if X.ndim != 2:
        raise CLIError(f"{path}: X must be a 2-D array, got shape {X.shape}")
    return X, y


def read_data(path, target=None, need_target=True):
    path = Path(path)
    reader = read_npz if path.suffix == ".npz" else read_csv
    if need_target and target is None and reader is read_csv:
        raise CLIError("name the target column with --target (a header name or an index)")
    X, y = reader(path, target)
    if need_target and y is None:
        raise CLIError(f"{path}: no target array 'y' (name one with --target)")
    return X, y


# -- fit ---------------------------------------------------------------------------------
def make_estimator(args, y):
    """The estimator of ``args.method`` for the task of ``y`` (or ``args.task``)."""
    from sklearn.utils.multiclass import type_of_target

    from ..kernel_learning.names import ESTIMATORS, make_family
    (classifier, regressor), fixed = METHODS[args.method]
    task = args.task
    if task == "auto":
        task = "regression" if type_of_target(y) == "continuous" else "classification"
    name = classifier if task == "classification" else regressor
    if name is None:
        other = "classification" if task == "regression" else "regression"
        raise CLIError(f"method {args.method!r} does {other} only, and the target calls for "
                       f"{task} (use --task to choose)")
    cls = ESTIMATORS[name]
    accepted = cls().get_params()
    params = dict(fixed, random_state=args.seed, verbose=args.verbose)
    for option, value in (("C", args.C), ("alpha", args.alpha), ("max_iter", args.max_iter),
                          ("oracle", args.oracle)):
        if value is None:
            continue
        if option not in accepted:
            raise CLIError(f"--{option.replace('_', '-')} does not apply to {args.method} "
                           f"({name} takes: {', '.join(sorted(accepted))})")
        params[option] = value
    if args.family is not None:
        params["family"] = make_family(args.family)
    return cls(**params)


def _results(estimator) -> list:
    result = estimator.result_
    return result if isinstance(result, list) else [result]


def final_estimator(model):
    """The sipkl estimator of a model: itself, or the last step of its ``Pipeline``."""
    from sklearn.pipeline import Pipeline
    return model[-1] if isinstance(model, Pipeline) else model


def cmd_fit(args) -> int:
    from sklearn.base import is_classifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ..persistence import document, save_model, write_json_atomic
    X, y = read_data(args.data, args.target)
    estimator = make_estimator(args, y)
    model = estimator if args.no_standardize else make_pipeline(StandardScaler(), estimator)
    model.fit(X, y)
    results = _results(estimator)
    statuses = ", ".join(dict.fromkeys(r.status for r in results))
    score = model.score(X, y)
    kind = "accuracy" if is_classifier(estimator) else "R²"
    print("features standardized to zero mean and unit variance on the training data (the "
          "scaler is part of the model; --no-standardize turns this off)"
          if not args.no_standardize else "features used as they are (--no-standardize)")
    print(f"{type(estimator).__name__} on {X.shape[0]} points × {X.shape[1]} features: "
          f"{statuses}, {sum(r.nit for r in results)} iteration(s), "
          f"{sum(len(r.columns) for r in results)} kernels, training {kind} {score:.4g}")
    if args.out is not None:
        try:
            arrays = save_model(model, args.out, training_data={"target": args.target})
        except (AttributeError, TypeError) as exc:
            raise CLIError(f"cannot save a {type(estimator).__name__} model: {exc}") from None
        print(f"model written to {args.out} (arrays in {arrays})")
    if args.run is not None:
        write_json_atomic(args.run, document(
            "sipkl.run", runs=[{"status": r.status, "message": r.message,
                                "history": r.history} for r in results]))
        print(f"run history written to {args.run}")
    return 0


# -- predict -----------------------------------------------------------------------------
def read_features(path, n_features: int, target=None, fitted_target=None):
    """The feature matrix of a data file for a model of ``n_features`` inputs: ``target``
    left out, or else the model's own target column ``fitted_target`` when the file still
    has it (a held-out copy of the training file). Returns ``(X, dropped column or None)``."""
    if target is None and fitted_target is not None and Path(path).suffix != ".npz":
        try:
            X, _ = read_data(path, fitted_target, need_target=False)
        except CLIError:  # no such column: the file has the features only
            X = None
        if X is not None and X.shape[1] == n_features:
            return X, fitted_target
    X, _ = read_data(path, target, need_target=False)
    return X, target


def cmd_predict(args) -> int:
    from ..persistence import load_model, read_json
    estimator = load_model(args.model)
    fitted_target = (read_json(args.model).get("training_data") or {}).get("target")
    expected = estimator.n_features_in_
    X, dropped = read_features(args.data, expected, args.target, fitted_target)
    if dropped is not None and args.target is None:
        print(f"column {dropped!r} left out: it is the model's target", file=sys.stderr)
    if X.shape[1] != expected:
        hint = " (name the target column with --target to drop it)" \
            if X.shape[1] == expected + 1 and args.target is None else ""
        raise CLIError(f"{args.data}: {X.shape[1]} feature columns, the model expects "
                       f"{expected}{hint}")
    predictions = estimator.predict(X)
    text = [f"{p:.10g}" if isinstance(p, (float, np.floating)) else str(p)
            for p in predictions]
    if args.out is None:
        print("\n".join(text))
    else:
        with open(args.out, "w", newline="") as f:
            f.write("prediction\n" + "".join(line + "\n" for line in text))
        print(f"{len(text)} predictions written to {args.out}")
    return 0


# -- plot --------------------------------------------------------------------------------
def cmd_plot(args) -> int:
    from .. import plotting
    from ..persistence import read_json
    data = read_json(args.input)
    schema = data.get("schema") if isinstance(data, dict) else None
    if schema == "sipkl.model":
        kind = args.kind or "weights"
        if kind not in ("weights", "scales"):
            raise CLIError(f"a model file plots 'weights' or 'scales', not {kind!r}")
        from ..persistence import load_model
        model = final_estimator(load_model(args.input))
        kernels = model.kernel_ if isinstance(model.kernel_, list) else [model.kernel_]
        if not 0 <= args.index < len(kernels):
            raise CLIError(f"--index {args.index}: the model has {len(kernels)} kernel(s)")
        if kind == "weights":
            figure = plotting.plot_kernel_weights(kernels[args.index])
        else:
            figure = plotting.plot_ard_scales(kernels[args.index], model.n_features_in_)
    elif schema in ("sipkl.run", "sipkl.checkpoint"):
        if (args.kind or "convergence") != "convergence":
            raise CLIError(f"a run file plots 'convergence', not {args.kind!r}")
        runs = data.get("runs", [data])
        if not 0 <= args.index < len(runs):
            raise CLIError(f"--index {args.index}: the file has {len(runs)} run(s)")
        figure = plotting.plot_convergence(runs[args.index])
    else:
        raise CLIError(f"{args.input}: not a sipkl model, run or checkpoint file")
    figure.savefig(args.out, dpi=args.dpi)
    print(f"figure written to {args.out}")
    return 0


# -- demo, bench -------------------------------------------------------------------------
def cmd_demo(args) -> int:
    from .demo import run
    run(args.n_train, args.n_test, args.C, args.seed, verbose=0 if args.quiet else 1)
    return 0


def cmd_bench(args) -> int:
    from .experiments import run_bench
    return run_bench(args)


def build_parser() -> argparse.ArgumentParser:
    from ..kernel_learning.names import FAMILIES, ORACLES, buildable
    parser = argparse.ArgumentParser(prog="sipkl", description="Kernel learning by "
                                     "semi-infinite programming (column generation).")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    fit = commands.add_parser(
        "fit", help="learn a kernel and a model from a CSV or NPZ file",
        description="Fit an estimator on a data file and save the model (JSON + NPZ).")
    fit.add_argument("data", help="CSV file (header optional) or NPZ file with X and y")
    fit.add_argument("--target", help="target column of a CSV (name or index; required) or "
                     "array of an NPZ (default y)")
    fit.add_argument("--method", choices=sorted(METHODS), default="ikl",
                     help="ikl: IKLClassifier; fsam, alignf: AlignmentKernel*; greedy: "
                     "GreedyKernelRidge*; pairwise: PairwiseAlignmentClassifier; nkrr: "
                     "NonlinearKernelRidge (default ikl)")
    fit.add_argument("--task", choices=("auto", "classification", "regression"),
                     default="auto", help="default: regression for a continuous target")
    fit.add_argument("--family", choices=buildable(FAMILIES), help="kernel family (default: the "
                     "method's, e.g. gaussian_iso)")
    fit.add_argument("--oracle", choices=buildable(ORACLES), help="pricing oracle (default: the "
                     "method's)")
    fit.add_argument("--C", type=float, help="soft-margin parameter (ikl, fsam, alignf, "
                     "pairwise classifiers)")
    fit.add_argument("--alpha", type=float, help="ridge parameter (greedy, nkrr, fsam/alignf "
                     "regression)")
    fit.add_argument("--max-iter", type=int, help="column-generation iterations at most")
    fit.add_argument("--seed", type=int, default=0, help="random state (default 0)")
    fit.add_argument("--no-standardize", action="store_true",
                     help="use the features as they are (default: standardize them with a "
                     "StandardScaler fitted on the training data and saved with the model)")
    fit.add_argument("--out", help="write the model here (JSON, and its arrays to OUT.npz)")
    fit.add_argument("--run", help="write the run's history here (JSON, for sipkl plot)")
    fit.add_argument("-v", "--verbose", action="count", default=0,
                     help="-v: one line per iteration; -vv: a progress bar")
    fit.set_defaults(handler=cmd_fit)

    predict = commands.add_parser(
        "predict", help="predict with a saved model",
        description="Predictions of a saved model, one per line (stdout or a CSV file).")
    predict.add_argument("model", help="model file written by sipkl fit --out")
    predict.add_argument("data", help="CSV or NPZ file with the same feature columns")
    predict.add_argument("--target", help="a column (or NPZ array) to ignore (default: the "
                         "model's target column, when the file has it)")
    predict.add_argument("--out", help="write a CSV file (header 'prediction') instead")
    predict.set_defaults(handler=cmd_predict)

    plot = commands.add_parser(
        "plot", help="plot a saved model or run to PNG",
        description="Kernel weights or per-dimension scales of a model file; convergence of "
                    "a run file (sipkl fit --run) or an engine checkpoint.")
    plot.add_argument("input", help="model, run or checkpoint JSON file")
    plot.add_argument("--out", required=True, help="image file (PNG)")
    plot.add_argument("--kind", choices=("weights", "scales", "convergence"),
                      help="default: weights for a model, convergence for a run")
    plot.add_argument("--index", type=int, default=0,
                      help="which kernel or run (one per class for one-vs-rest); default 0")
    plot.add_argument("--dpi", type=int, default=100)
    plot.set_defaults(handler=cmd_plot)

    demo = commands.add_parser("demo", help="IKL on the chessboard toy vs a tuned SVM",
                               description="IKL chessboard toy (gehler_nowozin §4.3).")
    demo.add_argument("--n-train", type=int, default=300)
    demo.add_argument("--n-test", type=int, default=2000)
    demo.add_argument("--C", type=float, default=1.0)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--quiet", action="store_true", help="no iteration log")
    demo.set_defaults(handler=cmd_demo)

    bench = commands.add_parser("bench", help="run a benchmark suite",
                                description="Run a benchmark suite (see docs/benchmarks.md).")
    from .experiments import add_bench_arguments
    add_bench_arguments(bench)
    bench.set_defaults(handler=cmd_bench)
    return parser


def _one_line(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "demo" and (args.n_train < 10 or args.n_test < 1 or args.C <= 0):
        parser.error("--n-train must be ≥ 10, --n-test ≥ 1 and --C > 0")
    try:
        return args.handler(args)
    except (OSError, ValueError, ImportError) as exc:
        print(f"sipkl {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
