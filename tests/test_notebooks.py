"""Every notebook in ``docs/notebooks`` runs from top to bottom without an error.

The notebooks are stored without outputs; nbclient executes them in a fresh
``python3`` kernel whose working directory is a temporary folder (a notebook
must not rely on files of the repository, nor import the uncompiled source
tree).  ``python3`` resolves to this interpreter: ipykernel, installed in the
same environment (the ``test`` extra), provides the kernel spec, and
jupyter_client launches a spec whose command is ``python`` with
``sys.executable`` -- ``test_kernel_is_this_interpreter`` checks it.
"""

import sys
import tempfile
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
jupyter_client = pytest.importorskip("jupyter_client")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "docs" / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 300      # seconds per cell, generous for a loaded machine


def execute(nb, cwd):
    # The kernel's channels are Unix sockets (transport "ipc"), not TCP ports:
    # jupyter_client picks a kernel's five ports by binding each to port 0 and closing
    # it, and until the kernel binds them another process (the kernel or the Dask
    # cluster of a test on another xdist worker) may take one.  A short folder of its
    # own: a socket's path is limited to 107 bytes.
    with tempfile.TemporaryDirectory(prefix="pauc-kernel-") as sockets:
        km = jupyter_client.KernelManager(kernel_name="python3", transport="ipc",
                                          ip=str(Path(sockets) / "ipc"))
        client = nbclient.NotebookClient(nb, km=km, timeout=CELL_TIMEOUT,
                                         resources={"metadata": {"path": str(cwd)}})
        return client.execute()


def test_notebooks_exist():
    names = {p.name for p in NOTEBOOKS}
    assert {"quickstart.ipynb", "trees.ipynb", "window_boosting.ipynb"} <= names


def test_kernel_is_this_interpreter(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os, sys\nprint(sys.executable)\nprint(os.getcwd())")])
    out = execute(nb, tmp_path).cells[0].outputs[0]["text"].split()
    assert Path(out[0]).resolve() == Path(sys.executable).resolve()
    assert Path(out[1]).resolve() == tmp_path.resolve()


@pytest.mark.slow(seconds=15)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    # Stored without outputs: the repository holds the source, not a stale run.
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in nb.cells if c.cell_type == "code"), f"{path.name} has saved outputs"
    executed = execute(nb, tmp_path)
    errors = [o for c in executed.cells if c.cell_type == "code"
              for o in c.outputs if o.get("output_type") == "error"]
    assert not errors
