"""MkDocs hooks: what the site shows of a run is computed while the site is built.

* ``on_files`` executes each tutorial notebook of ``NOTEBOOKS`` — ``docs/tutorial.ipynb``
  (kernel learning) and ``docs/sip_tutorial.ipynb`` (your first semi-infinite program) — in a
  Jupyter kernel (nbclient) and makes the page ``<name>.md`` from it
  (:func:`notebook_markdown`): its Markdown cells as they are, its code cells as Python
  blocks, and their outputs — text, Markdown (the tables), and figures, added to the site as
  ``figures/<name>/figure-<k>.png``. The notebook is the one source of its page; it is also
  copied to the site, for download. A cell that raises fails the build.
* The benchmarks page is ``docs/benchmarks.md``, written by the benchmark scripts; until that
  file exists the page is a short generated stub.
* The site loads nothing from the network: ``on_files`` adds MathJax (``tex-svg.js``, one
  file with its fonts, from the pinned copy of the ``mathjax`` package of the docs extra) and
  the style sheet of the code that Pygments highlighted during the build.
"""
from __future__ import annotations

import base64
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
#: the notebooks that are pages: ``docs/<name>.ipynb`` becomes the page ``<name>.md``
NOTEBOOKS = (ROOT / "docs" / "tutorial.ipynb", ROOT / "docs" / "sip_tutorial.ipynb")
BENCHMARKS_STUB = """# Benchmarks

No benchmark results are in this build yet: the benchmark scripts in `benchmarks/`
write them to `docs/benchmarks.md`, which becomes this page.
"""


def execute_notebook(path: Path, timeout: int = 300):
    """The notebook at ``path``, executed top to bottom in a fresh Python kernel."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    notebook = nbformat.read(path, as_version=4)
    try:
        NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    except CellExecutionError as exc:
        raise PluginError(f"{path.name} failed: {exc}") from None
    return notebook


def _fenced(text: str, language: str) -> str:
    return f"```{language}\n{text.rstrip()}\n```"


def notebook_markdown(notebook, figures_dir: str) -> tuple[str, dict[str, bytes]]:
    """The page of an executed notebook and its figures (``{file name: PNG bytes}``, linked
    from the page as ``figures_dir/<file name>``).

    Code cells lose their IPython magics (``%matplotlib inline``), which are not Python."""
    parts, figures = [], {}
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            parts.append(cell.source)
            continue
        if cell.cell_type != "code":
            continue
        code = "\n".join(line for line in cell.source.splitlines()
                         if not line.startswith("%"))
        parts.append(_fenced(code, "python"))
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                parts.append(_fenced(output.text, "text"))
            elif output.output_type in ("display_data", "execute_result"):
                data = output.data
                if "image/png" in data:
                    name = f"figure-{len(figures)}.png"
                    figures[name] = base64.b64decode(data["image/png"])
                    parts.append(f"![figure {len(figures)}]({figures_dir}/{name})")
                elif "text/markdown" in data:
                    parts.append(data["text/markdown"])
                elif "text/plain" in data:
                    parts.append(_fenced(data["text/plain"], "text"))
    return "\n\n".join(parts) + "\n", figures


def on_files(files, config):
    for notebook in NOTEBOOKS:
        figures_dir = f"figures/{notebook.stem}"
        page, figures = notebook_markdown(execute_notebook(notebook), figures_dir)
        files.append(File.generated(config, f"{notebook.stem}.md", content=page))
        for name, png in figures.items():
            files.append(File.generated(config, f"{figures_dir}/{name}", content=png))
    if files.get_file_from_path("benchmarks.md") is None:
        files.append(File.generated(config, "benchmarks.md", content=BENCHMARKS_STUB))
    files.append(File.generated(config, "javascripts/tex-svg.js", abs_src_path=str(mathjax_script())))
    files.append(File.generated(config, "css/pygments.css", content=pygments_css()))
    return files


def mathjax_script() -> Path:
    """MathJax 3 with its SVG output (the glyphs inside: no font file to load), from the pinned
    copy of the docs extra (django-static-mathjax, imported as ``mathjax``)."""
    import mathjax
    return Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"


def pygments_css() -> str:
    """The style of the code blocks that pymdownx.highlight marked up with Pygments."""
    from pygments.formatters import HtmlFormatter
    return HtmlFormatter(style="default").get_style_defs(".highlight")
