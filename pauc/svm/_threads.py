"""One BLAS thread for the cutting-plane loops, without rescanning the libraries.

The solvers' products are small (a dot of two score vectors, K x K Gram
products, one ``X @ w``), and OpenBLAS's thread wake-ups cost more than they
save (see ``CuttingPlaneSolver.solve``).  ``threadpoolctl.threadpool_limits``
finds the loaded libraries anew on every call by reading the process's memory
map: about 1.5 ms, done twice per fit, which was a fifth of a small fit
(reuters, ``AUCSVM(C=100)``: 3 ms of 15 ms).  The libraries are found once
here, when the first fit runs (numpy has loaded its BLAS by then).
"""

from functools import lru_cache

from threadpoolctl import ThreadpoolController


@lru_cache(maxsize=1)
def _controller():
    return ThreadpoolController()


def single_blas_thread():
    """Context manager: BLAS libraries limited to one thread, restored on exit."""
    return _controller().limit(limits=1, user_api="blas")
