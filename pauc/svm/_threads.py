"""One BLAS thread for the cutting-plane loops, without rescanning the libraries.

The solvers' products are small (a dot of two score vectors, K x K Gram
products, one ``X @ w``), and OpenBLAS's thread wake-ups cost more than they
save (see ``CuttingPlaneSolver.solve``).  ``threadpoolctl.threadpool_limits``
finds the loaded libraries anew on every call by reading the process's memory
map, which is a noticeable share of a small fit (the developer guide keeps
the measurement).  The libraries are found once here, when the first fit runs
(numpy has loaded its BLAS by then).
"""

from functools import lru_cache

from threadpoolctl import ThreadpoolController


@lru_cache(maxsize=1)
def _controller():
    return ThreadpoolController()


def single_blas_thread():
    """Context manager: BLAS libraries limited to one thread, restored on exit."""
    return _controller().limit(limits=1, user_api="blas")
