"""The suite on every core (pytest-xdist), and the run's time budget.

``pytest`` runs on one pytest-xdist worker per core (``-n auto --dist
loadgroup`` in pyproject's ``addopts``): each worker takes the next test
as soon as it is free, except the tests marked with one
``@pytest.mark.xdist_group(name)``, which all run on one worker, one after
the other (those that share an expensive module fixture).  Everything else
a test writes goes to its own ``tmp_path`` (a folder per worker); the
hypothesis database (``.hypothesis/``) is shared, but a test runs in one
worker only, and its entries are keyed by the test and written atomically.

CI gives the whole run 15 minutes (installation included).  A test marked
``@pytest.mark.slow(seconds=S)`` (``S``: its measured duration on the
two-core reference machine, generously rounded) is a paper reproduction:
the slow tests are queued last, cheapest first, and one runs only when the
run's elapsed time plus ``S`` stays within ``PAUC_TEST_BUDGET`` seconds
(default ``DEFAULT_BUDGET``); otherwise it is skipped with the reason, and
``-ra`` lists it.  The elapsed time is the run's, counted from the
controller's start and the same on every worker: a worker's own clock
would start later (after its spawn and its collection), and would start
again from zero on a worker that xdist restarts.  ``PAUC_TEST_BUDGET=inf``
runs all of them, and so does selecting them explicitly (``pytest -m
slow``); ``-m "not slow"`` deselects them.
"""

import os
import time

import pytest

DEFAULT_BUDGET = 650.0        # seconds of pytest; pip install (torch included) takes about 150 more
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


def pytest_configure(config):
    # the controller's (or a serial run's) start; a worker takes it from its workerinput
    # (its own start only if the controller did not load this conftest)
    workerinput = getattr(config, "workerinput", {})
    config._pauc_started = workerinput.get("pauc_started", time.time())


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist's controller, for each worker it starts: the run's start."""
    node.workerinput["pauc_started"] = node.config._pauc_started


def pytest_collection_modifyitems(config, items):
    # every worker orders the same list; the controller hands the tests out in this order
    # (an xdist_group where its first test stands: --no-loadscope-reorder)
    slow = sorted((item for item in items if _is_slow(item)), key=_seconds)
    items[:] = [item for item in items if not _is_slow(item)] + slow


def pytest_runtest_setup(item):
    if not _is_slow(item) or "slow" in (item.config.option.markexpr or ""):
        return
    budget = float(os.environ.get("PAUC_TEST_BUDGET", DEFAULT_BUDGET))
    elapsed = time.time() - item.config._pauc_started
    if elapsed + _seconds(item) > budget:
        pytest.skip(f"{item.name}, slow ({_seconds(item):.0f} s): {elapsed:.0f} s of the run's "
                    f"{budget:.0f} s budget spent (PAUC_TEST_BUDGET=inf runs it)")
