"""The reductions of the global window, on XGBoost's collective communicator.

Inside ``xgboost.dask.train`` (and XGBoost's Spark and Ray training) every
worker runs the boosting loop in a communicator: :func:`xgboost.collective.allreduce`
combines an array across the workers.  :class:`XGBoostCollective` is the
small interface the distributed window needs -- ``sum``, ``max``, ``min`` of
fixed-size arrays -- and counts what each worker sends, so that the traffic
of an objective can be reported per round.  Outside a communicator (one
process) a reduction returns its input: the same code then computes the
single-process window.
"""

import numpy as np

__all__ = ["CollectiveError", "XGBoostCollective"]


class CollectiveError(RuntimeError):
    """A reduction across the workers failed (a worker died or timed out)."""


class XGBoostCollective:
    """``sum`` / ``max`` / ``min`` over the workers of XGBoost's communicator.

    Attributes
    ----------
    n_calls : int
        Reductions run.
    bytes_sent : int
        Bytes this worker contributed to them (the arrays' sizes).
    """

    def __init__(self):
        from xgboost import collective
        self._collective = collective
        self.n_calls, self.bytes_sent = 0, 0

    @property
    def world_size(self):
        return self._collective.get_world_size() if self._collective.is_distributed() else 1

    @property
    def rank(self):
        return self._collective.get_rank() if self._collective.is_distributed() else 0

    def _reduce(self, array, op):
        array = np.ascontiguousarray(array)
        self.n_calls += 1
        self.bytes_sent += array.nbytes
        if not self._collective.is_distributed():
            return array.copy()
        try:
            return self._collective.allreduce(array, op)
        except Exception as exc:      # XGBoostError: a peer is gone or timed out
            raise CollectiveError(
                "an allreduce of the global window failed: a worker of the XGBoost "
                f"communicator died or timed out ({type(exc).__name__}: {exc})") from exc

    def sum(self, array):
        return self._reduce(array, self._collective.Op.SUM)

    def max(self, array):
        return self._reduce(array, self._collective.Op.MAX)

    def min(self, array):
        return self._reduce(array, self._collective.Op.MIN)
