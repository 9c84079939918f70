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


def test_compare_csv(tmp_path, capsys):
    rng = np.random.default_rng(1)
    lines = ["a,b,label"] + [f"{rng.normal() + k:.3f},{rng.normal():.3f},{'yes' if k else 'no'}"
                             for k in rng.integers(0, 2, 120)]
    path = tmp_path / "d.csv"
    path.write_text("\n".join(lines) + "\n")
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


def test_compare_one_class_file(tmp_path, capsys):
    path = tmp_path / "one.svm"
    path.write_text("1 1:1\n1 2:1\n")
    assert main(["compare", "--data", str(path), "--quiet"]) == 2
    assert "two classes" in capsys.readouterr().err


def test_unknown_method_is_a_usage_error():
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--methods", "nope"])
    assert exc.value.code == 2


def test_compare_gradient_boosting_ranker(small_svmlight, capsys):
    assert main(["compare", "--data", str(small_svmlight), "--methods", "gbm", "--json",
                 "--quiet", "--fpr-range", "0", "0.2"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["method"] == "gbm"
    assert row["parameters"]["fpr_range"] == [0.0, 0.2]
    assert {"num_leaves", "learning_rate", "random_state"} <= set(row["parameters"])
    assert 0.5 < row["test_auc"] <= 1.0
