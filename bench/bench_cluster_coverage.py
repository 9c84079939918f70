"""Coverage of the clustered AUC intervals against the clusters holding the rarer class.

The cluster bootstrap redraws whole clusters: with K clusters holding
positives its resamples show the positives' spread through K draws, as the
row bootstrap shows it through the rows of the rarer class (whose coverage
table, 1 to 50 positives, is in ``docs/user_guide/inference.rst``).  This
script measures the coverage of the nominal 95 % intervals of the AUC,
``roc_auc_ci(y, s, groups=g, method="bootstrap")`` (the cluster bootstrap)
and ``roc_auc_ci(y, s, groups=g)`` (Obuchowski's variance), for K = 2 ... 50
clusters holding positives, in two designs of clusters of 4 rows with a
cluster effect of correlation ``rho`` (issue 46):

* ``pure``: K clusters of 4 positives, 50 clusters of 4 negatives; the
  scores ``d y + sqrt(rho) u + sqrt(1 - rho) e``, ``u`` the cluster's effect.
  No pair of a positive and a negative shares a cluster: the true AUC is
  ``Phi(d / sqrt 2)``.
* ``mixed``: K clusters of 2 positives and 2 negatives (the patients with
  the disease), 50 clusters of 4 negatives; the effect lowers a cluster's
  positives and raises its negatives (``sqrt(rho) u (2 y - 1)``, the guide's
  lesions).  The target is the empirical AUC's expectation: pairs within a
  cluster win with ``Phi(d / sqrt(2 + 2 rho))``, the others with
  ``Phi(d / sqrt 2)``.

``FEW_CLASS_CLUSTERS`` (``pauc/inference/_clusters.py``), the count below which the
cluster bootstrap warns, is read off this table (in the user guide,
``docs/user_guide/inference.rst``).  The default run (400 replications, 1,000
resamples, d = 1, rho = 0.6, K = 2, 3, 5, 10, 15, 20, 30, 50) takes about 40 s
of CPU and prints the guide's figures (every replication is seeded):

    python bench/bench_cluster_coverage.py
    python bench/bench_cluster_coverage.py --replications 1000 --clusters 2 5 10
"""

import argparse
import time
import warnings

import numpy as np
from scipy.stats import norm

from pauc.metrics import roc_auc_ci

NEGATIVE_CLUSTERS = 50
CLUSTER_SIZE = 4


def design(kind, k, d, rho, rng):
    """``(y, score, groups, target)`` of one replication with ``k`` clusters holding
    positives."""
    if kind == "pure":
        y = np.r_[np.ones(CLUSTER_SIZE * k, dtype=bool),
                  np.zeros(CLUSTER_SIZE * NEGATIVE_CLUSTERS, dtype=bool)]
        sign = np.ones(y.size)
    else:
        per = CLUSTER_SIZE // 2
        y = np.r_[np.tile(np.r_[np.ones(per, dtype=bool), np.zeros(per, dtype=bool)], k),
                  np.zeros(CLUSTER_SIZE * NEGATIVE_CLUSTERS, dtype=bool)]
        sign = 2.0 * y - 1.0
    groups = np.repeat(np.arange(k + NEGATIVE_CLUSTERS), CLUSTER_SIZE)
    u = rng.normal(size=k + NEGATIVE_CLUSTERS)[groups]
    score = d * y + np.sqrt(rho) * u * sign + np.sqrt(1.0 - rho) * rng.normal(size=y.size)
    across = norm.cdf(d / np.sqrt(2.0))
    if kind == "pure":
        return y, score, groups, across
    m, n = int(y.sum()), int((~y).sum())
    within = k * (CLUSTER_SIZE // 2) ** 2          # positive-negative pairs in a cluster
    target = (within * norm.cdf(d / np.sqrt(2.0 + 2.0 * rho)) + (m * n - within) * across) \
        / (m * n)
    return y, score, groups, target


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--clusters", type=int, nargs="+", default=[2, 3, 5, 10, 15, 20, 30, 50])
    parser.add_argument("--designs", nargs="+", default=["pure", "mixed"],
                        choices=["pure", "mixed"])
    parser.add_argument("--d", type=float, default=1.0)
    parser.add_argument("--rho", type=float, default=0.6)
    args = parser.parse_args()
    # the few-clusters warning is the subject here, not news
    warnings.simplefilter("ignore", UserWarning)
    start = time.perf_counter()
    print(f"nominal 95 % AUC intervals, {args.replications} replications, "
          f"{args.resamples} resamples, d = {args.d:g}, rho = {args.rho:g}, clusters of "
          f"{CLUSTER_SIZE}, {NEGATIVE_CLUSTERS} clusters of negatives only")
    print(f"{'design':<7} {'K':>4} {'cluster bootstrap':>18} {'Obuchowski':>11} "
          f"{'se ratio boot/obu':>18}")
    for kind in args.designs:
        for k in args.clusters:
            hits_boot = hits_obu = 0
            se_ratio = []
            for r in range(args.replications):
                rng = np.random.default_rng([k, r, kind == "mixed"])
                y, s, g, target = design(kind, k, args.d, args.rho, rng)
                boot = roc_auc_ci(y, s, groups=g, method="bootstrap",
                                  n_resamples=args.resamples, random_state=r)
                obu = roc_auc_ci(y, s, groups=g)
                hits_boot += boot.low <= target <= boot.high
                hits_obu += obu.low <= target <= obu.high
                se_ratio.append(boot.standard_error / obu.standard_error)
            print(f"{kind:<7} {k:>4} {hits_boot / args.replications:>18.3f} "
                  f"{hits_obu / args.replications:>11.3f} {np.median(se_ratio):>18.2f}",
                  flush=True)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
