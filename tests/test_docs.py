"""The documentation builds without a warning and its examples run."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.slow(seconds=25)
@pytest.mark.parametrize("builder", ["html", "doctest"])
def test_docs_build_warning_free(builder, tmp_path):
    # A copy of the sources per build: autosummary writes its stubs (generated/) into
    # the source folder, and the two builders run at once on two xdist workers: on one
    # folder, one build would read the stubs that the other is rewriting.
    source = tmp_path / "docs"
    shutil.copytree(DOCS, source, ignore=shutil.ignore_patterns("_build", "generated"))
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", builder,
         "-d", str(tmp_path / "doctrees"), str(source), str(tmp_path / builder)],
        capture_output=True, text=True,
        # not the repository root: "python -m" would put its uncompiled pauc/ first on sys.path
        cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
