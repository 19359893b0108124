"""MkDocs hooks: what the site shows of a run is computed while the site is built.

* ``on_files`` runs the tutorial story (``examples/tutorial_column_generation.py``) and adds
  its figures to the site as ``figures/tutorial/*.png``; ``on_page_markdown`` puts the
  iteration table of the same run into ``tutorial.md`` (at the marker :data:`TABLE`).
* The benchmarks page is ``docs/benchmarks.md``, written by the benchmark scripts; until that
  file exists the page is a short generated stub.
"""
from __future__ import annotations

import importlib.util
import io
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
TABLE = "<!-- tutorial: iterations -->"
STATUS = "<!-- tutorial: status -->"
BENCHMARKS_STUB = """# Benchmarks

No benchmark results are in this build yet: the benchmark scripts in `benchmarks/`
write them to `docs/benchmarks.md`, which becomes this page.
"""

_tutorial: dict = {}


def _load_example(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_files(files, config):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    story_module = _load_example("tutorial_column_generation")
    story = story_module.run()
    result = story["classifier"].result_
    _tutorial["table"] = story_module.table(story)
    _tutorial["status"] = (f"The run stopped after {result.nit} iterations with status "
                           f"`{result.status}`: {result.message}.")
    for name, figure in story_module.figures(story).items():
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=90)
        plt.close(figure)
        files.append(File.generated(config, f"figures/tutorial/{name}",
                                    content=buffer.getvalue()))
    if files.get_file_from_path("benchmarks.md") is None:
        files.append(File.generated(config, "benchmarks.md", content=BENCHMARKS_STUB))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != "tutorial.md":
        return markdown
    for marker, key in ((TABLE, "table"), (STATUS, "status")):
        if marker not in markdown:
            raise PluginError(f"tutorial.md lost its marker {marker}")
        markdown = markdown.replace(marker, _tutorial[key])
    return markdown
