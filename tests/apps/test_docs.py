"""The documentation site builds as `make docs` builds it — every warning an error — with the
tutorial notebooks executed during the build, and a site that reads offline. (The notebooks'
runs are checked in tests/apps/test_examples.py, the code blocks of the other pages run in
tests/apps/test_snippets.py.)"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="the docs toolchain "
                                "(mkdocstrings-python 2) needs Python ≥ 3.11")
ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow  # about 50 s (the site, its notebooks executed): in make test-slow
def test_docs_build_strict(tmp_path):
    site = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                          str(site)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr[-4000:]
    # the tutorial page is the notebook, executed: its code, outputs, table and figures
    tutorial = (site / "tutorial" / "index.html").read_text()
    assert "certified_optimal after" in tutorial and "<th>iteration</th>" in tutorial
    assert "show_landscape(0)" in text(tutorial) and "%matplotlib" not in text(tutorial)
    for k in range(7):
        figure = f"figures/tutorial/figure-{k}.png"
        assert (site / figure).read_bytes()[:8] == PNG, figure
        assert f'src="../{figure}"' in tutorial
    assert (site / "tutorial.ipynb").read_bytes() == (ROOT / "docs" / "tutorial.ipynb").read_bytes()
    # so is the SIP tutorial: its code, the tables it prints, its figure, the notebook to download
    sip = (site / "sip_tutorial" / "index.html").read_text()
    assert "def chebyshev_program" in text(sip) and "%matplotlib" not in text(sip)
    assert "<th>oracle</th>" in sip and "certified_optimal" in sip
    assert (site / "figures" / "sip_tutorial" / "figure-0.png").read_bytes()[:8] == PNG
    assert 'src="../figures/sip_tutorial/figure-0.png"' in sip
    assert (site / "sip_tutorial.ipynb").read_bytes() == \
        (ROOT / "docs" / "sip_tutorial.ipynb").read_bytes()
    assert 'href="../sip_tutorial/"' in (site / "concepts" / "index.html").read_text()
    assert "class ScanOracle:" in text((site / "custom-oracle" / "index.html").read_text())
    core = (site / "api" / "core" / "index.html").read_text()
    assert 'id="sipkl.core.engine.ColumnGeneration"' in core
    solvers = (site / "api" / "solvers" / "index.html").read_text()
    assert 'id="sipkl.solvers.status.Status"' in solvers  # the back-ends folder, as installed
    assert (site / "benchmarks" / "index.html").exists()
    assert_reads_offline(site)


def text(html: str) -> str:
    """What a page shows, without its tags (Pygments marks up every token of the code)."""
    return re.sub(r"<[^>]+>", "", html)


#: a script, a style sheet or anything a page or a style sheet loads, from another host
REMOTE = re.compile(r"""<script[^>]*\ssrc=["']?(?:https?:)?//"""
                    r"""|<link[^>]*\shref=["']?(?:https?:)?//"""
                    r"""|url\(\s*["']?(?:https?:)?//|@import\s+["']?(?:https?:)?//""", re.I)


def assert_reads_offline(site):
    """No page or style sheet of the site loads a remote file, and the mathematics is typeset
    by the site's own copy of MathJax."""
    loaded = [f"{path.relative_to(site)}: {match.group(0)}"
              for path in site.rglob("*") if path.suffix in (".html", ".css")
              for match in REMOTE.finditer(path.read_text(errors="replace"))]
    assert not loaded, loaded[:5]
    page = (site / "algorithms" / "ikl" / "index.html").read_text()
    assert 'class="arithmatex"' in page and 'src="../../javascripts/tex-svg.js"' in page
    assert "MathJax" in (site / "javascripts" / "tex-svg.js").read_text()[:20000]


def test_the_offline_check_sees_remote_files(tmp_path):
    for html in ('<script src="https://unpkg.com/mathjax@3/es5/tex-mml-chtml.js"></script>',
                 "<link rel='stylesheet' href='//cdnjs.cloudflare.com/x.css'>",
                 '<style>@import "https://fonts.example/x.css";</style>'):
        (tmp_path / "index.html").write_text(html)
        with pytest.raises(AssertionError):
            assert_reads_offline(tmp_path)


def test_the_architecture_page_shows_the_import_graph_of_the_code():
    """docs/architecture.md shows what ``python docs/import_graph.py`` prints today."""
    drawing = subprocess.run([sys.executable, "docs/import_graph.py"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.strip()
    assert drawing.count("\n") > 20
    assert drawing in (ROOT / "docs" / "architecture.md").read_text()
