"""Sphinx helpers for the tropattn site: the API pages generated from the faces, and a gallery scraper.

The API reference is written at build time (``builder-inited``) into ``docs/api/`` from each
public subpackage's or module's ``__all__`` (its face), so a new face or a new name needs no
edit here: one page per face, ``autoclass``/``autofunction``/``autodata`` per name, and a root
page that says where each name of ``tropattn.__all__`` lives.  ``docs/api/`` is generated and
ignored by git.
"""

from __future__ import annotations

import importlib
import inspect
import pathlib
import pkgutil
import shutil

HERE = pathlib.Path(__file__).resolve().parent
API = HERE.parent / "api"


def faces(package="tropattn"):
    """The public subpackages and modules of ``package`` that have an ``__all__``, by name."""
    root = importlib.import_module(package)
    out = {}
    for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        if getattr(module, "__all__", None) is not None:
            out[module.__name__] = module
    return out


def _directive(value):
    if inspect.isclass(value):
        return "autoclass", ["   :members:", "   :show-inheritance:"]
    if inspect.isroutine(value):
        return "autofunction", []
    if inspect.ismodule(value):
        return None, []
    return "autodata", ["   :annotation:"]


def _summary(value):
    """The first paragraph of a docstring, on one line (whole, so no inline markup is cut)."""
    doc = inspect.getdoc(value) or ""
    return " ".join(doc.split("\n\n")[0].split())


def _title(text, char="="):
    return [text, char * len(text), ""]


def face_page(name, module):
    """The reStructuredText of one face's page."""
    lines = _title(f"``{name}``")
    lines += [f".. automodule:: {name}", "   :no-members:", "", ".. currentmodule:: " + name, ""]
    names = list(module.__all__)
    documented = [(item, getattr(module, item)) for item in names if _directive(getattr(module, item))[0]]
    if documented:                                   # a face emptied by a move has no table (docutils refuses one)
        lines += [".. rubric:: Contents", "", ".. list-table::", "   :widths: 30 70", ""]
        for item, value in documented:
            summary = _summary(value) if _directive(value)[0] != "autodata" else ""
            lines += [f"   * - :obj:`{item}`", f"     - {summary}"]
        lines.append("")
    for item, value in documented:
        directive, options = _directive(value)
        lines += [f".. {directive}:: {name}.{item}", *options, ""]
    return "\n".join(lines)


def root_page(found):
    """The page of ``tropattn`` itself: where each of its names is documented."""
    import tropattn

    lines = _title("``tropattn``")
    lines += [".. automodule:: tropattn", "   :no-members:", "", "Every name of ``tropattn.__all__`` and the face that documents it:", "",
              ".. list-table::", "   :header-rows: 1", "", "   * - name", "     - documented in"]
    own = []
    for item in tropattn.__all__:
        if item == "__version__":
            continue
        value = getattr(tropattn, item)
        home = next((f for f, m in found.items() if item in m.__all__ and getattr(m, item, None) is value), None)
        if home is None:
            home = next((f for f, m in found.items()
                         if getattr(value, "__name__", None) in m.__all__
                         and getattr(m, value.__name__, None) is value), None)
            target = f"{home}.{value.__name__}" if home else None
        else:
            target = f"{home}.{item}"
        if target is None:                       # a root-only name (no face exports it): documented on this page
            own.append((item, value))
            target = f"tropattn.{item}"
        lines += [f"   * - :obj:`{item} <{target}>`", f"     - {f':mod:`{home}`' if home else 'this page'}"]
    lines.append("")
    if own:
        lines += _title("Names no face exports", "-") + [".. currentmodule:: tropattn", ""]
        for item, value in own:
            directive, options = _directive(value)
            lines += [f".. {directive or 'autodata'}:: tropattn.{item}", *options, ""]
    return "\n".join(lines)


def write_api(app=None):
    """Write ``docs/api/*.rst``: an index, the root page and one page per face."""
    found = faces()
    if API.exists():
        shutil.rmtree(API)
    API.mkdir()
    (API / "tropattn.rst").write_text(root_page(found))
    for name, module in found.items():
        (API / f"{name}.rst").write_text(face_page(name, module))
    index = _title("API reference") + [
        "Generated at build time from each face's ``__all__`` (``docs/_ext/tropattn_docs.py``): a name is",
        "documented under the subpackage that exports it.", "", ".. toctree::", "   :maxdepth: 1", "",
        "   tropattn", *[f"   {name}" for name in found], ""]
    (API / "index.rst").write_text("\n".join(index))


def png_scraper(block, block_vars, gallery_conf):
    """sphinx-gallery scraper: the PNG files a gallery script wrote into its own folder.

    The plot functions save pictures (``plot_overlay(heads, box, "overlay.png")``); this moves
    each new PNG from the script's folder into the gallery's image path, so the source folder
    stays clean, and returns the reST that shows them.
    """
    from sphinx_gallery.scrapers import figure_rst

    folder = pathlib.Path(block_vars["src_file"]).parent
    seen = block_vars.setdefault("tropattn_seen_png", set())
    new = sorted(p for p in folder.glob("*.png") if p not in seen)
    names = []
    for png, target in zip(new, block_vars["image_path_iterator"]):
        shutil.move(str(png), target)
        names.append(target)
    return figure_rst(names, gallery_conf["src_dir"])


#: Docstring lines that do not parse as reStructuredText, and their repair: (line, replacement).  Matched by
#: content, so an entry is a no-op once the docstring itself is fixed (then delete it).  See docs/README.md.
DOCSTRING_FIXES = [
    # tropattn.temperature (soon tropattn.soft): the displayed formulas need a literal block ("::").
    ("that never underflows.  Because ``sum_j p_j = 1``,", "that never underflows.  Because ``sum_j p_j = 1``::"),
]


def fix_docstring(app, what, name, obj, options, lines):
    """``autodoc-process-docstring``: apply :data:`DOCSTRING_FIXES`."""
    for i, line in enumerate(lines):
        for old, new in DOCSTRING_FIXES:
            if line.strip() == old:
                lines[i] = line.replace(old, new)


def setup(app):
    app.connect("builder-inited", write_api)
    app.connect("autodoc-process-docstring", fix_docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
