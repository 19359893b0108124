"""The documentation site builds as `make docs` builds it — every warning an error — with the
tutorial notebook executed during the build. (The notebook's run is checked in
tests/test_examples.py, the code blocks of the other pages run in tests/test_snippets.py.)"""
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
    # the tutorial page is the notebook, executed: its code, outputs, table and figures
    tutorial = (site / "tutorial" / "index.html").read_text()
    assert "certified_optimal after" in tutorial and "<th>iteration</th>" in tutorial
    assert "show_landscape(0)" in tutorial and "%matplotlib" not in tutorial
    for k in range(7):
        figure = f"figures/tutorial/figure-{k}.png"
        assert (site / figure).read_bytes()[:8] == PNG, figure
        assert f'src="../{figure}"' in tutorial
    assert (site / "tutorial.ipynb").read_bytes() == (ROOT / "docs" / "tutorial.ipynb").read_bytes()
    assert "class ScanOracle:" in (site / "custom-oracle" / "index.html").read_text()
    engine = (site / "api" / "engine" / "index.html").read_text()
    assert 'id="sipkl.engine.ColumnGeneration"' in engine
    assert (site / "benchmarks" / "index.html").exists()
