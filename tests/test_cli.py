"""The command line: ``pauc compare``."""

import json

import numpy as np
import pytest

from pauc.__main__ import main


@pytest.fixture
def small_svmlight(tmp_path):
    rng = np.random.default_rng(0)
    lines = []
    for _ in range(300):
        y = int(rng.random() < 0.3)
        x = rng.normal(size=4) + y
        lines.append(f"{2 * y - 1} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x)))
    path = tmp_path / "small.svm"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_compare_json_on_a_file(small_svmlight, capsys):
    assert main(["compare", "--data", str(small_svmlight), "--methods", "logreg",
                 "--json", "--quiet", "--fpr-range", "0", "0.2"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["method"] for r in rows] == ["logreg"]
    assert {"method", "parameters", "fit_seconds", "test_auc", "test_pauc",
            "tpr_at_beta"} <= set(rows[0])
    assert 0.5 < rows[0]["test_auc"] <= 1.0


def test_compare_table_on_bundled_a9a(capsys):
    assert main(["compare", "--methods", "logreg", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "logreg" in out and "pAUC[0,0.1]" in out


def test_compare_tune_and_plot(small_svmlight, tmp_path, capsys):
    png = tmp_path / "roc.png"
    assert main(["compare", "--data", str(small_svmlight), "--methods", "logreg", "--tune",
                 "--plot", str(png), "--json"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert rows[0]["parameters"]["C"] in (0.01, 0.1, 1.0, 10.0)
    assert "fitting logreg" in captured.err and "done" in captured.err
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"
    # the picture carries the scores it shows (tests/test_readme.py reads them)
    from PIL import Image
    assert Image.open(png).text["Description"] == (
        f"logreg {rows[0]['test_auc']:.4f} {rows[0]['test_pauc']:.4f}")


def test_compare_csv(tmp_path, capsys):
    path = _two_feature_csv(tmp_path / "d.csv", 1, 120, lambda k: "yes" if k else "no")
    assert main(["compare", "--data", str(path), "--label-column", "label", "--pos-label",
                 "yes", "--methods", "logreg", "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["test_auc"] > 0.6
    assert main(["compare", "--data", str(path), "--methods", "logreg", "--quiet"]) == 2
    assert "--label-column" in capsys.readouterr().err
    assert main(["compare", "--data", str(path), "--label-column", "nope", "--quiet"]) == 2
    assert "no column" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["compare", "--data", "/no/such/file.svm"], "no such"),
    (["compare", "--fpr-range", "0.3", "0.1"], "fpr-range"),
])
def test_compare_errors_exit_2(argv, message, capsys):
    assert main(argv + ["--quiet"]) == 2
    assert message in capsys.readouterr().err


def test_compare_csv_with_a_header_and_no_rows(tmp_path, capsys):
    path = tmp_path / "empty.csv"
    path.write_text("a,b,label\n")
    assert main(["compare", "--data", str(path), "--label-column", "label", "--quiet"]) == 2
    assert "holds a header and no rows" in capsys.readouterr().err


def test_compare_one_class_file(tmp_path, capsys):
    path = tmp_path / "one.svm"
    path.write_text("1 1:1\n1 2:1\n")
    assert main(["compare", "--data", str(path), "--quiet"]) == 2
    assert "two classes" in capsys.readouterr().err


def test_unknown_method_is_a_usage_error():
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--methods", "nope"])
    assert exc.value.code == 2


# ---------------------------------------------------------------- issue 21


def _csv_pair(tmp_path, test_header):
    """A training CSV (a, b, c, label) and a test CSV with the same rows under
    ``test_header`` (the same columns, reordered)."""
    rng = np.random.default_rng(5)

    def rows(n):
        k = rng.integers(0, 2, n)
        return [{"a": f"{rng.normal() + 1.5 * c:.3f}", "b": f"{rng.normal():.3f}",
                 "c": f"{rng.normal() - c:.3f}", "label": str(c)} for c in k]

    def write(path, header, records):
        path.write_text(",".join(header) + "\n"
                        + "\n".join(",".join(r[h] for h in header) for r in records) + "\n")
        return path

    train, test = rows(200), rows(150)
    return (write(tmp_path / "train.csv", ["a", "b", "c", "label"], train),
            write(tmp_path / "test_same.csv", ["a", "b", "c", "label"], test),
            write(tmp_path / "test_moved.csv", test_header, test))


def test_test_csv_columns_are_matched_by_name(tmp_path, capsys):
    """Issue 21, item 2: a test CSV whose header is the training header reordered
    (c,label,b,a) gave AUC 0.50 for every method; columns are matched by name."""
    train, same, moved = _csv_pair(tmp_path, ["c", "label", "b", "a"])
    results = []
    for test in (same, moved):
        assert main(["compare", "--data", str(train), "--test", str(test), "--label-column",
                     "label", "--methods", "logreg", "svm-auc", "--quiet", "--json"]) == 0
        results.append(json.loads(capsys.readouterr().out))
    for a, b in zip(*results):
        assert a["test_auc"] == b["test_auc"] > 0.8
        assert a["test_pauc"] == b["test_pauc"]


def test_test_csv_with_missing_or_extra_columns_is_refused(tmp_path, capsys):
    train, _, _ = _csv_pair(tmp_path, ["c", "label", "b", "a"])
    other = tmp_path / "other.csv"
    other.write_text("a,b,d,label\n1,2,3,0\n2,3,4,1\n")
    assert main(["compare", "--data", str(train), "--test", str(other), "--label-column",
                 "label", "--methods", "logreg", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "lacks the column(s) ['c']" in err and "['d']" in err


def test_duplicate_methods_run_once(small_svmlight, capsys):
    assert main(["compare", "--data", str(small_svmlight), "--methods", "logreg", "svm-auc",
                 "logreg", "--json", "--quiet"]) == 0
    assert [r["method"] for r in json.loads(capsys.readouterr().out)] == ["logreg", "svm-auc"]


def test_plot_path_is_checked_before_fitting(small_svmlight, tmp_path, capsys, monkeypatch):
    import pauc.__main__ as cli

    fitted = []
    monkeypatch.setattr(cli, "_fit", lambda *a: fitted.append(a) or [])
    bad = tmp_path / "no" / "such" / "roc.png"
    assert main(["compare", "--data", str(small_svmlight), "--methods", "logreg",
                 "--plot", str(bad)]) == 2
    assert "--plot" in capsys.readouterr().err and not fitted


def test_progress_is_plain_lines_off_a_terminal(small_svmlight, capsys):
    assert main(["compare", "--data", str(small_svmlight), "--methods", "logreg", "svm-auc",
                 "--json"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    assert [line.split()[:2] for line in err.splitlines()] == [["fitting", "logreg"],
                                                               ["fitting", "svm-auc"]]


def _two_feature_csv(path, seed, n, label):
    """A CSV ``a,b,label`` whose first feature is shifted by the class (``label(k)``)."""
    rng = np.random.default_rng(seed)
    lines = ["a,b,label"] + [f"{rng.normal() + k:.3f},{rng.normal():.3f},{label(k)}"
                             for k in rng.integers(0, 2, n)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_pos_label_1_on_labels_written_1_0(tmp_path, capsys):
    path = _two_feature_csv(tmp_path / "f.csv", 2, 150, float)
    for extra in ([], ["--pos-label", "1"], ["--pos-label", "1.0"]):
        assert main(["compare", "--data", str(path), "--label-column", "label", *extra,
                     "--methods", "logreg", "--quiet", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)[0]["test_auc"] > 0.6


def test_degenerate_model_is_flagged_in_the_table(tmp_path, capsys):
    """Issue 21, item 1: on the issue's split svm-pauc's optimum is w = 0 and the fit
    returned noise (test AUC 0.148, no word).  Now: AUC 0.5, a note in the table, the
    warning printed under it, "degenerate" in the JSON."""
    from sklearn.datasets import dump_svmlight_file, make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(600, 10, n_informative=4, flip_y=0.05, class_sep=0.8,
                               random_state=27)
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.5, random_state=27)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    dump_svmlight_file(Xa, ya, str(train))
    dump_svmlight_file(Xb, yb, str(test))
    argv = ["compare", "--data", str(train), "--test", str(test), "--methods", "svm-pauc",
            "svm-auc", "--quiet"]
    assert main(argv + ["--json"]) == 0
    rows = {r["method"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["svm-pauc"]["degenerate"] and rows["svm-pauc"]["test_auc"] == 0.5
    assert any("DegenerateSolutionWarning" in m for m in rows["svm-pauc"]["warnings"])
    assert not rows["svm-auc"]["degenerate"] and rows["svm-auc"]["test_auc"] > 0.8
    assert main(argv) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("svm-pauc"))
    assert "w = 0, no ranking [1]" in line
    assert "[1] svm-pauc: DegenerateSolutionWarning" in out and "widen fpr_range" in out


def test_svms_choose_c_by_cross_validation_unless_no_tune(small_svmlight, capsys):
    """Issue 20: the SVMs' C comes from their CV estimators (a path over the registry's
    grid) by default; --no-tune keeps the fixed C; --tune and --no-tune exclude each other."""
    from pauc._registry import METHODS

    argv = ["compare", "--data", str(small_svmlight), "--methods", "svm-auc", "svm-pauc",
            "--quiet", "--json"]
    assert main(argv) == 0
    rows = {r["method"]: r for r in json.loads(capsys.readouterr().out)}
    for name in ("svm-auc", "svm-pauc"):
        assert rows[name]["parameters"]["C"] in METHODS[name].grid["C"]
    assert main(argv + ["--no-tune"]) == 0
    rows = {r["method"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["svm-auc"]["parameters"]["C"] == METHODS["svm-auc"].params["C"]
    assert rows["svm-pauc"]["parameters"]["C"] == METHODS["svm-pauc"].params["C"]
    with pytest.raises(SystemExit):
        main(argv + ["--tune", "--no-tune"])


def test_compare_gradient_boosting_ranker(small_svmlight, capsys):
    assert main(["compare", "--data", str(small_svmlight), "--methods", "gbm", "--json",
                 "--quiet", "--fpr-range", "0", "0.2"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["method"] == "gbm"
    assert row["parameters"]["fpr_range"] == [0.0, 0.2]
    assert {"num_leaves", "learning_rate", "random_state"} <= set(row["parameters"])
    assert 0.5 < row["test_auc"] <= 1.0
