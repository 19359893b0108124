"""The documentation site builds as `make docs` builds it — every warning an error — with the
tutorial's figures and table computed during the build. (The code the pages include runs in
tests/test_examples.py.)"""
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="the docs toolchain "
                                "(mkdocstrings-python 2) needs Python ≥ 3.11")
ROOT = Path(__file__).resolve().parents[1]
PNG = b"\x89PNG\r\n\x1a\n"


def test_docs_build_strict(tmp_path):
    site = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                          str(site)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr[-4000:]
    figures = site / "figures" / "tutorial"
    for name in ("landscape-0.png", "landscape-1.png", "landscape-final.png",
                 "convergence.png", "weights.png", "decision.png"):
        assert (figures / name).read_bytes()[:8] == PNG, name
    tutorial = (site / "tutorial" / "index.html").read_text()
    assert "<!-- tutorial" not in tutorial and "status <code>certified_optimal</code>" in tutorial
    assert 'src="../figures/tutorial/landscape-final.png"' in tutorial
    assert "class ScanOracle:" in (site / "custom-oracle" / "index.html").read_text()
    engine = (site / "api" / "engine" / "index.html").read_text()
    assert 'id="sipkl.engine.ColumnGeneration"' in engine
    assert (site / "benchmarks" / "index.html").exists()
