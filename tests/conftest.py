"""The suite on every core (pytest-xdist), longest tests first.

``pytest`` runs on one pytest-xdist worker per core (``-n auto --dist
loadgroup`` in pyproject's ``addopts``): each worker takes the next test
as soon as it is free, except the tests marked with one
``@pytest.mark.xdist_group(name)``, which all run on one worker, one after
the other (those that share an expensive module fixture, a port, a cluster
or a process group).  Everything else a test writes goes to its own
``tmp_path`` (a folder per worker); the hypothesis database (``.hypothesis/``)
is shared, but a test runs in one worker only, and its entries are keyed by
the test and written atomically.

A test marked ``@pytest.mark.slow(seconds=S)`` (``S``: its measured duration
on the two-core reference machine, rounded) is queued first, longest first:
the workers then finish together, where a long test handed out last would keep
one worker busy after the others are done.  Every test runs: ``-m "not slow"``
deselects the slow ones by choice, never for lack of time.

Each worker computes in one thread (``OMP_NUM_THREADS`` and the BLAS
libraries' counts set to 1 before anything loads them, and passed on to the
processes a test starts): with one worker per core, a second thread per
library per worker would only oversubscribe the cores (OpenBLAS's threads
spin while they wait).  A test that runs threads of its own (``n_jobs=2``)
still gets them: the engines take their thread counts per call.
"""

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

UNMEASURED_SECONDS = 60.0     # a slow test that does not say its cost


def _seconds(item):
    return float(item.get_closest_marker("slow").kwargs.get("seconds", UNMEASURED_SECONDS))


def _is_slow(item):
    return item.get_closest_marker("slow") is not None


def pytest_addoption(parser, pluginmanager):
    """Under ``-p no:xdist`` the ``-n`` and ``--dist`` of pyproject's ``addopts``
    would be unknown arguments: accept them, and run serially."""
    if pluginmanager.has_plugin("xdist"):
        return
    group = parser.getgroup("xdist", "pytest-xdist is disabled (-p no:xdist): ignored")
    # _addoption: pytest reserves lowercase short options (-n) to itself; pytest-xdist
    # declares its own -n the same way
    group._addoption("-n", "--numprocesses", dest="numprocesses", default=None,
                     help="ignored: pytest-xdist is disabled")
    group.addoption("--dist", dest="dist", default="no",
                    help="ignored: pytest-xdist is disabled")
    group.addoption("--no-loadscope-reorder", dest="loadscopereorder", action="store_false",
                    help="ignored: pytest-xdist is disabled")


def pytest_collection_modifyitems(config, items):
    # every worker orders the same list; the controller hands the tests out in this order
    # (an xdist_group where its first test stands: --no-loadscope-reorder)
    slow = sorted((item for item in items if _is_slow(item)), key=_seconds, reverse=True)
    items[:] = slow + [item for item in items if not _is_slow(item)]
