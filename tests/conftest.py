"""The run's time budget: slow paper reproductions run last, cheapest first, and
only while they fit.

CI gives the whole run 15 minutes (installation included).  A test marked
``@pytest.mark.slow(seconds=S)`` (``S``: its measured duration on the
two-core reference machine, generously rounded) runs only when the run's
elapsed time plus ``S`` stays within ``PAUC_TEST_BUDGET`` seconds (default
``DEFAULT_BUDGET``); otherwise it is skipped with the reason, and ``-ra``
lists it.  ``PAUC_TEST_BUDGET=inf`` runs all of them, and so does selecting
them explicitly (``pytest -m slow``).
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


def pytest_sessionstart(session):
    session.config._pauc_started = time.monotonic()


def pytest_collection_modifyitems(config, items):
    slow = sorted((item for item in items if _is_slow(item)), key=_seconds)
    items[:] = [item for item in items if not _is_slow(item)] + slow


def pytest_runtest_setup(item):
    if not _is_slow(item) or "slow" in (item.config.option.markexpr or ""):
        return
    budget = float(os.environ.get("PAUC_TEST_BUDGET", DEFAULT_BUDGET))
    elapsed = time.monotonic() - item.config._pauc_started
    if elapsed + _seconds(item) > budget:
        pytest.skip(f"{item.name}, slow ({_seconds(item):.0f} s): {elapsed:.0f} s of the run's "
                    f"{budget:.0f} s budget spent (PAUC_TEST_BUDGET=inf runs it)")
