"""Timing helper shared by the benchmark scripts (the machines are shared and noisy)."""

import time

import numpy as np


def best_fit(make, X, y, repeat):
    """Best wall time of ``make().fit(X, y)`` over ``repeat`` runs, and that run's estimator."""
    best, model_best = np.inf, None
    for _ in range(repeat):
        model = make()
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        if seconds < best:
            best, model_best = seconds, model
    return best, model_best


def best_time(fn, repeat):
    """Best wall time of ``fn()`` over ``repeat`` calls."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def interleaved_best_times(fns, repeat):
    """Best wall time of each callable, the callables run in turn ``repeat`` times,
    so that a shared machine's changing load hits the reference and the contender alike."""
    best = [np.inf] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - start)
    return best
