"""Every ```python block of README.md and of the documentation pages runs as shown.

The blocks of one page run in order, in one fresh interpreter (a later block may use the
names of an earlier one, as a reader following the page does), in a scratch folder (they may
write files) with matplotlib drawing off-screen. ``--8<--`` lines are replaced by the file or
section they include, as the documentation build does. A block is left out only when the line
before its fence is ``<!-- snippet: skip (reason) -->``, for code that cannot run offline;
no page needs it today. The tutorial page is a notebook, executed by tests/apps/test_examples.py
and by the documentation build; shell blocks (the command line) are covered by
tests/apps/test_cli.py.
"""
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)
SKIP = re.compile(r"<!-- snippet: skip \(.+\) -->\n$")
INCLUDE = re.compile(r'^--8<-- "([^":]+)(?::(\w+))?"$', re.M)
RUNNER = """
import json, linecache, sys
for __name, __code in json.load(sys.stdin):
    linecache.cache[__name] = (len(__code), None, __code.splitlines(True), __name)
    exec(compile(__code, __name, "exec"), globals())
"""


def included(match: re.Match) -> str:
    """The text a ``--8<-- "path[:section]"`` line stands for (pymdownx.snippets)."""
    text = (ROOT / match[1]).read_text()
    if match[2] is None:
        return text
    section = re.search(rf"--8<-- \[start:{match[2]}\]\n(.*?)\n[^\n]*--8<-- \[end:{match[2]}\]",
                        text, re.S)
    return textwrap.dedent(section[1])  # as dedent_subsections in mkdocs.yml


def blocks(page: Path) -> list[tuple[str, str]]:
    """``(name, code)`` of each block of ``page`` that runs, named by page and line."""
    text = page.read_text()
    out = []
    for match in FENCE.finditer(text):
        if SKIP.search(text[:match.start()]):
            continue
        line = text.count("\n", 0, match.start()) + 1
        out.append((f"{page.relative_to(ROOT)}, block at line {line}",
                    INCLUDE.sub(included, match[1])))
    return out


RUNNABLE = [page for page in PAGES if blocks(page)]


def test_the_pages_have_blocks():
    names = {str(page.relative_to(ROOT)) for page in RUNNABLE}
    assert {"README.md", "docs/getting-started.md", "docs/custom-oracle.md"} <= names


@pytest.mark.parametrize("page", RUNNABLE, ids=lambda page: str(page.relative_to(ROOT)))
def test_code_blocks_run(page, tmp_path):
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(blocks(page)),
                         cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
                         env={**os.environ, "PYTHONPATH": path, "MPLBACKEND": "Agg"})
    assert out.returncode == 0, out.stderr[-4000:]
