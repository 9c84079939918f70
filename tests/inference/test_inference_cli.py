"""``pauc compare --ci``: intervals, differences to the best, and the plot's band."""

import json

import numpy as np
import pytest

from pauc.__main__ import main
from pauc.metrics import compare_rankers, partial_auc_ci


@pytest.fixture
def svmlight(tmp_path):
    rng = np.random.default_rng(0)
    lines = []
    for _ in range(900):
        y = int(rng.random() < 0.3)
        x = rng.normal(size=4) + y * np.array([1.0, 0.5, 0.0, 0.0])
        lines.append(f"{2 * y - 1} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x)))
    path = tmp_path / "d.svm"
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(argv, capsys):
    assert main(argv) == 0
    return capsys.readouterr().out


def test_json_rows_carry_intervals_and_differences(svmlight, capsys):
    out = _run(["compare", "--data", str(svmlight), "--methods", "logreg", "treerank",
                "--json", "--quiet", "--fpr-range", "0", "0.2", "--resamples", "200"], capsys)
    rows = json.loads(out)
    best = max(rows, key=lambda r: r["test_pauc"])
    other = next(r for r in rows if r is not best)
    assert best["pauc_diff_to_best"] == 0.0 and best["pauc_diff_pvalue"] is None
    assert other["pauc_diff_to_best"] == pytest.approx(other["test_pauc"] - best["test_pauc"],
                                                       abs=1e-12)
    assert 0.0 <= other["pauc_diff_pvalue"] <= 1.0
    for r in rows:
        low, high = r["test_pauc_ci"]
        assert low <= r["test_pauc"] <= high
        low, high = r["test_auc_ci"]
        assert low <= r["test_auc"] <= high


def test_json_values_are_the_library_functions(svmlight, capsys):
    """The columns are partial_auc_ci / compare_rankers with --seed as random_state."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    from pauc.datasets import load_svmlight

    rows = json.loads(_run(["compare", "--data", str(svmlight), "--methods", "logreg", "--json",
                            "--quiet", "--resamples", "100", "--seed", "3"], capsys))
    X, y = load_svmlight(str(svmlight))
    X, X_test, y, y_test = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=3)
    s = LogisticRegression(C=1.0, max_iter=1000).fit(X, y).decision_function(X_test)
    ci = partial_auc_ci(y_test, s, fpr_range=(0, 0.1), n_resamples=100, random_state=3)
    assert rows[0]["test_pauc_ci"] == pytest.approx([ci.low, ci.high], abs=1e-12)


def test_tpr_at_column_is_tpr_at_fpr_ci(svmlight, capsys):
    """--tpr-at FPR: the test TPR at that FPR and its exact bootstrap interval."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    from pauc.datasets import load_svmlight
    from pauc.metrics import tpr_at_fpr, tpr_at_fpr_ci

    rows = json.loads(_run(["compare", "--data", str(svmlight), "--methods", "logreg", "--json",
                            "--quiet", "--resamples", "100", "--seed", "3", "--tpr-at", "0.2"],
                           capsys))
    X, y = load_svmlight(str(svmlight))
    X, X_test, y, y_test = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=3)
    s = LogisticRegression(C=1.0, max_iter=1000).fit(X, y).decision_function(X_test)
    ci = tpr_at_fpr_ci(y_test, s, 0.2)
    assert rows[0]["tpr_at"] == 0.2 and rows[0]["test_tpr_at"] == tpr_at_fpr(y_test, s, 0.2)
    assert rows[0]["test_tpr_at_ci"] == pytest.approx([ci.low, ci.high], abs=1e-12)
    out = _run(["compare", "--data", str(svmlight), "--methods", "logreg", "--quiet",
                "--resamples", "50", "--seed", "3", "--tpr-at", "0.2"], capsys)
    assert "TPR@0.2" in out and f"[{ci.low:.4f}, {ci.high:.4f}]" in out
    out = _run(["compare", "--data", str(svmlight), "--methods", "logreg", "--quiet",
                "--no-ci", "--tpr-at", "0.2"], capsys)
    assert "TPR@0.2" in out and "95% CI" not in out
    assert main(["compare", "--data", str(svmlight), "--methods", "logreg", "--quiet",
                 "--tpr-at", "1.5"]) == 2
    assert "--tpr-at" in capsys.readouterr().err


def test_table_shows_interval_columns_and_notes(svmlight, capsys):
    out = _run(["compare", "--data", str(svmlight), "--methods", "logreg", "treerank",
                "--quiet", "--resamples", "100"], capsys)
    assert "pAUC 95% CI" in out and "best" in out
    assert "paired bootstrap" in out
    # 300 test rows, ~210 negatives: [0, 0.1] holds 21; [0, 0.05] fewer than 20
    out = _run(["compare", "--data", str(svmlight), "--methods", "logreg", "--quiet",
                "--resamples", "50", "--fpr-range", "0", "0.05"], capsys)
    assert out.count("interval is coarse") == 1


def test_no_ci(svmlight, capsys):
    rows = json.loads(_run(["compare", "--data", str(svmlight), "--methods", "logreg",
                            "--json", "--quiet", "--no-ci"], capsys))
    assert "test_pauc_ci" not in rows[0]
    out = _run(["compare", "--data", str(svmlight), "--methods", "logreg", "--quiet",
                "--no-ci"], capsys)
    assert "pAUC 95% CI" not in out


def test_bad_resamples_is_a_usage_error_before_fitting(svmlight, capsys, monkeypatch):
    import pauc.__main__ as cli

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted before the input was checked")

    monkeypatch.setattr(cli, "_fit", no_fit)
    assert main(["compare", "--data", str(svmlight), "--methods", "logreg", "--quiet",
                 "--resamples", "0"]) == 2
    assert "--resamples" in capsys.readouterr().err
    # one resample has no spread: refused, not a p-value of 0
    assert main(["compare", "--data", str(svmlight), "--methods", "logreg", "--quiet",
                 "--resamples", "1"]) == 2
    assert "--resamples must be >= 2" in capsys.readouterr().err


def test_a_test_without_spread_prints_no_pvalue():
    from pauc.__main__ import _json_ready, _pvalue_text

    assert _pvalue_text(float("nan")) == "n/a" and _pvalue_text(0.0001) == "<0.001"
    assert _json_ready([{"p": float("nan"), "ci": [0.5, float("nan")]}]) == [
        {"p": None, "ci": [0.5, None]}]


def test_plot_with_band(svmlight, tmp_path, capsys):
    png = tmp_path / "roc.png"
    _run(["compare", "--data", str(svmlight), "--methods", "logreg", "--quiet",
          "--resamples", "100", "--plot", str(png)], capsys)
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


def test_plot_roc_band_draws_on_main_and_inset_axes():
    import matplotlib

    matplotlib.use("Agg")
    from pauc.plotting import plot_roc, plot_roc_band

    rng = np.random.default_rng(0)
    y = rng.random(2000) < 0.3
    s = rng.normal(size=2000) + y
    ax = plot_roc(y, {"s": s}, fpr_range=(0, 0.1))
    before = [len(a.collections) for a in [ax] + list(ax.child_axes)]
    plot_roc_band(y, s, fpr_range=(0, 0.1), ax=ax, label="s", n_resamples=50, random_state=0)
    after = [len(a.collections) for a in [ax] + list(ax.child_axes)]
    assert all(b + 1 == a for a, b in zip(after, before)) and len(after) == 2
    assert any("bootstrap band" in t.get_text() for t in ax.get_legend().get_texts())


def test_compare_difference_sign_convention():
    rng = np.random.default_rng(0)
    y = rng.random(600) < 0.3
    a, b = rng.normal(size=600) + y, rng.normal(size=600)
    c = compare_rankers(y, a, b, metric="partial_auc", n_resamples=100, random_state=0)
    assert c.difference == c.estimate_a - c.estimate_b > 0
