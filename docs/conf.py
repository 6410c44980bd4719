"""Sphinx configuration of the tropattn site (build: see docs/README.md)."""

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import tropattn  # noqa: E402

project = "tropattn"
author = "the tropattn authors"
copyright = "the tropattn authors, MIT licence"
release = version = tropattn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "sphinx.ext.doctest",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "tropattn_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "README.md", "tutorial.ipynb", "gallery/README.rst", "auto_gallery/*.ipynb",
                    "auto_gallery/*.py", "auto_gallery/*.zip", "auto_gallery/*.md5", "auto_gallery/*.json"]
html_theme = "alabaster"
html_static_path = []
html_title = f"tropattn {release}"

# autodoc / numpydoc: the faces re-export names from private modules; document them where the face puts them.
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"
autosummary_generate = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# myst: the Markdown pages are included as they are.
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_gallery",
    "filename_pattern": r"/plot_",
    "image_scrapers": ("matplotlib", "tropattn_docs.png_scraper"),
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
}
