"""Hostile input: every case a user should get a clear error for, as one parametrised list.

Collected from an adversarial session (issue 21): bad rates, windows and
normalisations, label sets whose positive class is not implied, bad
constructor parameters, malformed CSV files and command lines.  Each case
names the exception and a fragment of the message, which must name what is
wrong (the parameter, the option, the column).  Wrong *answers* found in the
same session are tested beside the code they concern:

* degenerate structural SVMs (item 1): ``tests/svm/test_degenerate.py``;
* CSV columns by name, ``--plot``, ``--methods``, progress (item 2, CLI):
  ``tests/test_cli.py``, ``tests/test_progress.py``;
* scorers' positive class (item 3): ``tests/test_scorers.py``;
* one positive-class rule, ``pos_label`` on every ranker (items 4, 5):
  ``tests/test_positive_class.py``;
* integer scores beyond 2**53 (item 7), McClish below 0.5, ``roc_curve`` on
  one class: ``tests/test_metrics.py``;
* CSV parsing (BOM, "1" vs "1.0"): ``tests/test_datasets.py``;
* no ranker worse than chance without a warning: ``tests/test_chance.py``.
"""

import re

import numpy as np
import pytest

import pauc
from pauc.__main__ import main
from pauc.datasets import load_csv, load_svmlight
from pauc.metrics import (partial_auc, partial_auc_scorer, roc_auc, roc_auc_scorer, roc_curve,
                          tpr_at_fpr, tpr_at_fpr_scorer, two_way_partial_auc)
from pauc.svm import AUCSVM, PartialAUCSVM

Y = np.array([0, 1, 0, 1, 1, 0])
S = np.array([0.1, 0.9, 0.4, 0.35, 0.8, 0.2])
Y_MINUS1_0 = Y - 1                      # {-1, 0}: neither {0, 1} nor {-1, 1}
X4 = np.random.default_rng(0).normal(size=(40, 4))
Y4 = (X4[:, 0] > 0).astype(int)


def _csv(tmp_path, text, name="d.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _svm(tmp_path, text, name="d.svm"):
    path = tmp_path / name
    path.write_text(text)
    return path


# (id, call(tmp_path), exception, message fragment (regex))
HOSTILE = [
    # --- tpr_at_fpr: rates (item 6) --------------------------------------
    ("tpr_at_fpr fpr=nan", lambda t: tpr_at_fpr(Y, S, np.nan), ValueError,
     r"fpr must be in \[0, 1\], got nan"),
    ("tpr_at_fpr fpr=-0.1", lambda t: tpr_at_fpr(Y, S, -0.1), ValueError,
     r"fpr must be in \[0, 1\]"),
    ("tpr_at_fpr fpr=1.5", lambda t: tpr_at_fpr(Y, S, 1.5), ValueError, r"fpr must be in"),
    ("tpr_at_fpr fpr='0.1'", lambda t: tpr_at_fpr(Y, S, "0.1"), ValueError,
     r"fpr must be a number in \[0, 1\], got '0.1'"),
    ("tpr_at_fpr fpr=None", lambda t: tpr_at_fpr(Y, S, None), ValueError,
     r"fpr must be a number .* got None"),
    ("tpr_at_fpr fpr=True", lambda t: tpr_at_fpr(Y, S, True), ValueError,
     r"fpr must be a number .* got True"),
    ("tpr_at_fpr interpolate='yes'", lambda t: tpr_at_fpr(Y, S, 0.1, interpolate="yes"),
     ValueError, "interpolate must be True or False"),
    # --- windows and normalisations --------------------------------------
    ("two_way max_fpr=0", lambda t: two_way_partial_auc(Y, S, max_fpr=0), ValueError,
     r"max_fpr must be in \(0, 1\], got 0"),
    ("two_way min_tpr=1", lambda t: two_way_partial_auc(Y, S, min_tpr=1.0), ValueError,
     r"min_tpr must be in \[0, 1\), got 1.0"),
    ("two_way normalize='mcclish'",
     lambda t: two_way_partial_auc(Y, S, normalize="mcclish"), ValueError, "normalize"),
    ("partial_auc normalize=None", lambda t: partial_auc(Y, S, normalize=None), ValueError,
     "normalize must be one of"),
    # --- scorers check their arguments when built (item 3) ---------------
    ("partial_auc_scorer normalize='foo'", lambda t: partial_auc_scorer(normalize="foo"),
     ValueError, "normalize must be one of"),
    ("partial_auc_scorer fpr_range=(0.5, 0.1)",
     lambda t: partial_auc_scorer(fpr_range=(0.5, 0.1)), ValueError, "fpr_range"),
    ("tpr_at_fpr_scorer fpr=2.0", lambda t: tpr_at_fpr_scorer(fpr=2.0), ValueError,
     r"fpr must be in \[0, 1\], got 2.0"),
    ("tpr_at_fpr_scorer fpr='0.1'", lambda t: tpr_at_fpr_scorer(fpr="0.1"), ValueError,
     "fpr must be a number"),
    ("tpr_at_fpr_scorer interpolate=1", lambda t: tpr_at_fpr_scorer(interpolate=1),
     ValueError, "interpolate must be True or False"),
    ("roc_auc_scorer pos_label=[1, 2]", lambda t: roc_auc_scorer(pos_label=[1, 2]),
     ValueError, "pos_label must be one label"),
    # --- labels {-1, 0}: the rule refuses to guess (item 4) ---------------
    ("roc_auc on {-1, 0}", lambda t: roc_auc(Y_MINUS1_0, S), ValueError, "pass pos_label"),
    ("partial_auc on {-1, 0}", lambda t: partial_auc(Y_MINUS1_0, S), ValueError,
     "pass pos_label"),
    ("roc_curve on {-1, 0}", lambda t: roc_curve(Y_MINUS1_0, S), ValueError, "pass pos_label"),
    ("tpr_at_fpr on {-1, 0}", lambda t: tpr_at_fpr([-1, -1, 0, 0], [0.1, 0.2, 0.3, 0.4], 0.5),
     ValueError, "pass pos_label"),
    ("two_way on {-1, 0}", lambda t: two_way_partial_auc(Y_MINUS1_0, S), ValueError,
     "pass pos_label"),
    ("load_csv on {-1, 0}", lambda t: load_csv(_csv(t, "a,y\n1,-1\n2,0\n3,0\n"),
                                              label_column="y"), ValueError, "pass pos_label"),
    ("load_svmlight on {-1, 0}", lambda t: load_svmlight(_svm(t, "-1 1:1\n0 1:2\n0 1:3\n")),
     ValueError, "pass pos_label"),
    ("AUCSVM on {-1, 0}", lambda t: AUCSVM().fit(X4, Y4 - 1), ValueError, "pass pos_label"),
    # --- estimator parameters ---------------------------------------------
    ("PartialAUCSVM C=True", lambda t: PartialAUCSVM(C=True).fit(X4, Y4), ValueError,
     "C must be a positive finite number, got True"),
    ("AUCSVM C=True", lambda t: AUCSVM(C=True).fit(X4, Y4), ValueError,
     "C must be a positive finite number, got True"),
    ("AUCSVM verbose=-1", lambda t: AUCSVM(verbose=-1).fit(X4, Y4), ValueError,
     "verbose must be an integer >= 0, got -1"),
    ("PartialAUCSVM verbose=-1", lambda t: PartialAUCSVM(verbose=-1).fit(X4, Y4), ValueError,
     "verbose must be an integer >= 0, got -1"),
    ("PartialAUCSVM init=[nan]*4",
     lambda t: PartialAUCSVM((0.1, 0.5), surrogate="hinge", init=[np.nan] * 4).fit(X4, Y4),
     ValueError, "init must be .*a finite 1-d array, got"),
    ("PartialAUCSVM negative sample_weight",
     lambda t: PartialAUCSVM().fit(X4, Y4, sample_weight=np.r_[-1.0, np.ones(39)]),
     ValueError, "sample_weight must be finite and non-negative"),
    ("PartialAUCSVM nan sample_weight",
     lambda t: PartialAUCSVM().fit(X4, Y4, sample_weight=np.r_[np.nan, np.ones(39)]),
     ValueError, "sample_weight contains NaN"),
    ("AUCSVM negative sample_weight",
     lambda t: AUCSVM().fit(X4, Y4, sample_weight=np.r_[-1.0, np.ones(39)]),
     ValueError, "sample_weight must be finite and non-negative"),
    # --- CSV files ---------------------------------------------------------
    ("CSV label column twice",
     lambda t: load_csv(_csv(t, "a,y,y\n1,0,0\n2,1,1\n"), label_column="y"), ValueError,
     r"names the column\(s\) \['y'\] more than once"),
    ("CSV feature missing",
     lambda t: load_csv(_csv(t, "a,y\n1,0\n2,1\n"), label_column="y",
                        feature_names=["a", "b"]), ValueError, r"lacks the column\(s\) \['b'\]"),
    ("CSV feature extra",
     lambda t: load_csv(_csv(t, "a,b,c,y\n1,2,3,0\n2,3,4,1\n"), label_column="y",
                        feature_names=["b", "a"]), ValueError, r"not in feature_names \['c'\]"),
    ("CSV pos_label absent",
     lambda t: load_csv(_csv(t, "a,y\n1,no\n2,yes\n"), label_column="y", pos_label="maybe"),
     ValueError, "pos_label='maybe' is not one of the labels"),
]


@pytest.mark.parametrize("call, exception, message", [case[1:] for case in HOSTILE],
                         ids=[case[0] for case in HOSTILE])
def test_hostile_input_gets_a_clear_error(tmp_path, call, exception, message):
    with pytest.raises(exception, match=message):
        call(tmp_path)


def _rankers():
    import inspect

    from sklearn.base import BaseEstimator

    return [getattr(pauc, name) for name in pauc.__all__
            if inspect.isclass(getattr(pauc, name))
            and issubclass(getattr(pauc, name), BaseEstimator)]


@pytest.mark.parametrize("ranker", _rankers(), ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("labels, pos_label, message", [
    (lambda y: np.where(y == 1, "fraud", "legit"), None, "pass pos_label"),
    (lambda y: y + 1, None, "pass pos_label"),
    (lambda y: y - 1, None, "pass pos_label"),
    (lambda y: y, "fraud", "pos_label='fraud' is not one of the labels"),
], ids=["strings", "{1,2}", "{-1,0}", "pos_label absent"])
def test_every_ranker_refuses_to_guess_the_positive_class(ranker, labels, pos_label, message):
    with pytest.raises(ValueError, match=message):
        ranker(pos_label=pos_label).fit(X4, labels(Y4))


# --- the command line ------------------------------------------------------

CLI_HOSTILE = [
    ("--plot into a missing folder", ["--plot", "{tmp}/no/such/dir/roc.png"],
     "--plot: the folder .* does not exist"),
    ("--plot onto a folder", ["--plot", "{tmp}"], "--plot: .* is a folder"),
    ("--plot with an unknown format", ["--plot", "{tmp}/roc.nope"], "cannot write .nope"),
    ("--pos-label absent from a CSV", ["--data", "{csv}", "--label-column", "y",
                                       "--pos-label", "maybe"],
     "--pos-label='maybe' is not one of the labels"),
    ("CSV labels need --pos-label", ["--data", "{csv}", "--label-column", "y"],
     "pass --pos-label"),
    ("--pos-label not a number for svmlight", ["--data", "{svm}", "--pos-label", "yes"],
     "--pos-label must be a number"),
    ("test CSV with another column", ["--data", "{csv}", "--test", "{csv_other}",
                                      "--label-column", "y", "--pos-label", "yes"],
     r"lacks the column\(s\) \['b'\] and has column\(s\) not in feature_names \['c'\]"),
]


@pytest.mark.parametrize("argv, message", [case[1:] for case in CLI_HOSTILE],
                         ids=[case[0] for case in CLI_HOSTILE])
def test_hostile_command_line_exits_2_before_fitting(tmp_path, monkeypatch, capsys, argv,
                                                     message):
    """Exit 2 with a message naming the option, and nothing fitted (checked first)."""
    import pauc.__main__ as cli

    rng = np.random.default_rng(0)
    rows = "\n".join(f"{rng.normal():.3f},{rng.normal():.3f},{'yes' if k % 3 else 'no'}"
                     for k in range(30))
    files = {"tmp": str(tmp_path), "csv": str(_csv(tmp_path, "a,b,y\n" + rows + "\n")),
             "csv_other": str(_csv(tmp_path, "a,c,y\n" + rows + "\n", "other.csv")),
             "svm": str(_svm(tmp_path, "1 1:1\n-1 1:2\n1 1:3\n-1 1:0\n" * 5))}

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted before the input was checked")

    monkeypatch.setattr(cli, "_fit", no_fit)
    argv = [a.format(**files) for a in argv]
    assert main(["compare", "--methods", "logreg", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pauc: error: ")
    assert re.search(message, err), err
