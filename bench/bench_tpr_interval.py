"""Speed of ``tpr_at_fpr_ci`` relative to ``partial_auc_ci``, timed in the same run.

Target (issue 36): at 10^5 rows, the TPR's interval at a small FPR costs about
one bootstrap interval of the partial AUC over [0, 0.01] with 2,000 resamples
(ratio ~1).  Both the exact interval (no resamples: the bootstrap distribution
computed) and ``method="bootstrap"`` (2,000 draws from it) are timed, at
several FPRs; the reference and the contenders run in turn (best of
``--repeat``), so that the shared machine's load hits them alike.

    python bench/bench_tpr_interval.py
    python bench/bench_tpr_interval.py --n 1e6
"""

import argparse
import warnings

import numpy as np

from pauc.metrics import partial_auc_ci, tpr_at_fpr_ci

from _timing import interleaved_best_times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e5, help="rows (10 %% positives)")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    n = int(args.n)
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.1).astype(int)
    s = rng.normal(size=n) + 1.5 * y
    warnings.simplefilter("ignore", UserWarning)        # FPR 1e-4: the coarse-window warning
    print(f"{n} rows, {int(y.sum())} positives; reference: partial_auc_ci over [0, 0.01], "
          "2,000 resamples")
    for fpr in (1e-4, 1e-2, 1e-1):
        ref, exact, boot = interleaved_best_times([
            lambda: partial_auc_ci(y, s, fpr_range=(0.0, 0.01), n_resamples=2000,
                                   random_state=0),
            lambda: tpr_at_fpr_ci(y, s, fpr),
            lambda: tpr_at_fpr_ci(y, s, fpr, method="bootstrap", n_resamples=2000,
                                  random_state=0),
        ], args.repeat)
        print(f"FPR {fpr:g}: reference {1e3 * ref:6.1f} ms | exact {1e3 * exact:6.1f} ms, "
              f"ratio {exact / ref:.2f} | bootstrap {1e3 * boot:6.1f} ms, "
              f"ratio {boot / ref:.2f}")


if __name__ == "__main__":
    main()
