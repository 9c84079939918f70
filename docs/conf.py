"""Sphinx configuration of the pauc documentation (built with -W in the tests)."""

import pauc

project = "pauc"
author = "the pauc developers"
copyright = "2026, the pauc developers"
release = version = pauc.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
]
autosummary_generate = True
templates_path = ["_templates"]     # class pages list their own methods only
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
exclude_patterns = ["_build", "notebooks/.ipynb_checkpoints"]
html_theme = "alabaster"
html_static_path = ["_static"]
suppress_warnings = ["config.cache"]
