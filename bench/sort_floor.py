"""Why the sort-based window losses cost more than 2 x numpy.sort (issue 18's bench row).

Prints, at n = 10^6, each step's time over ``numpy.sort`` of the scores: the
pairwise hinge losses need the window and the positives sorted *with their row
numbers* (to write each row's gradient), and at this size numpy's SIMD sort is
faster than any sort that carries rows.  Run: ``python bench/sort_floor.py``.
"""

import time

import numpy as np

from pauc._loss import _window as _window_losses
from pauc._loss._structural import sorted_candidates


def best(f, repeat=7):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main(n=10**6):
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.3).astype(np.uint8)
    s = rng.normal(size=n) + y
    n_pos = int(y.sum())
    n_neg = n - n_pos
    ref = best(lambda: np.sort(s))
    rows = [("numpy.sort(float64)", ref),
            ("numpy.sort(uint64)", best(lambda: np.sort(s.view(np.uint64)))),
            ("numpy.argsort", best(lambda: np.argsort(s))),
            ("sorted_candidates, every row (packed-key sort with rows)",
             best(lambda: sorted_candidates(s, y, n, -np.inf, 0, np.empty(n))))]
    grad, hess = np.zeros(n), np.zeros(n)
    for name, (a, b) in {"[0,0.1]": (0, int(np.ceil(0.1 * n_neg))),
                         "[0.02,0.05]": (int(0.02 * n_neg), int(np.ceil(0.05 * n_neg))),
                         "[0,1]": (0, n_neg)}.items():
        for loss in ("exponential", "squared_hinge", "tight_hinge"):
            kernel = getattr(_window_losses, loss)
            rows.append((f"{loss} {name}",
                         best(lambda: kernel(s, y, n_pos, a, b, grad, hess), repeat=5)))
    print(f"{'n = %d' % n:<60} {'time / numpy.sort':>18}")
    for name, t in rows:
        print(f"{name:<60} {t / ref:>18.2f}")


if __name__ == "__main__":
    main()
