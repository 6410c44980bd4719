"""Write docs/tutorial.ipynb from docs/tutorial.md: Markdown cells, and a code cell per ```python block.

The notebook is generated, never edited by hand: change docs/tutorial.md and rerun

    python scripts/tutorial_notebook.py            # writes docs/tutorial.ipynb
    python scripts/tutorial_notebook.py --check    # exits 1 if the committed notebook is stale

Outputs are empty and cell ids are numbered (``cell-0``, ``cell-1``, ...), so the same Markdown
always gives the same file; tests/test_notebook.py checks that and executes the notebook.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.md"
NOTEBOOK = ROOT / "docs" / "tutorial.ipynb"
BLOCK = re.compile(r"^```python\n(.*?)^```[ \t]*\n?", flags=re.S | re.M)


def cells(text):
    """``[(kind, source)]`` in order: ``"markdown"`` between blocks, ``"code"`` for each ```python block."""
    out, pos = [], 0
    for match in BLOCK.finditer(text):
        prose = text[pos:match.start()].strip("\n")
        if prose.strip():
            out.append(("markdown", prose))
        out.append(("code", match.group(1).rstrip("\n")))
        pos = match.end()
    prose = text[pos:].strip("\n")
    if prose.strip():
        out.append(("markdown", prose))
    return out


def build(text):
    """The notebook (an ``nbformat`` v4 node) of a tutorial's Markdown text, outputs stripped."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    for i, (kind, source) in enumerate(cells(text)):
        make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        cell = make(source)
        cell.id = f"cell-{i}"
        nb.cells.append(cell)
    return nb


def render(text):
    """The notebook file's text for a tutorial's Markdown text."""
    import nbformat

    return nbformat.writes(build(text)) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/tutorial.ipynb is not up to date")
    args = parser.parse_args(argv)
    wanted = render(TUTORIAL.read_text(encoding="utf-8"))
    if args.check:
        current = NOTEBOOK.read_text(encoding="utf-8") if NOTEBOOK.exists() else ""
        if current != wanted:
            print(f"{NOTEBOOK.relative_to(ROOT)} is stale: run python scripts/tutorial_notebook.py", file=sys.stderr)
            return 1
        return 0
    NOTEBOOK.write_text(wanted, encoding="utf-8")
    print(f"wrote {NOTEBOOK.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
