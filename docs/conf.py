"""Sphinx configuration of golf's documentation: ``sphinx-build -W -b html docs docs/_build/html``
(``pip install -e ".[docs]"``). The pages are MyST markdown; the API reference is autodoc with
numpydoc; the config reference and the benchmark pages are generated at build time by
``_ext/golfdocs.py``."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "_ext"))

import golf  # noqa: E402

project = "golf"
author = "the golf developers"
copyright = "2026, the golf developers"
release = version = golf.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "numpydoc", "golfdocs"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

autodoc_member_order = "bysource"
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_validation_checks: set = set()

html_theme = "furo"
html_title = "golf"
html_static_path = ["_static"]
