"""``python -m pauc compare`` as a user runs it: in a subprocess, outside the source tree.

The working directory is a temporary folder: from the repository root,
``python -m pauc`` would import the source ``pauc/`` folder, which holds no
compiled modules.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

METHODS = ["logreg", "svm-auc"]        # the fast ones: the point is the command, not the fits


def run(tmp_path, *args, timeout=180):
    return subprocess.run([sys.executable, "-m", "pauc", "compare", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=timeout)


def parse_table(text):
    """Rows of the printed table as {method: (AUC, pAUC, TPR)}, as printed (strings)."""
    lines = text.strip().splitlines()
    dashes = next(i for i, line in enumerate(lines) if set(line) == {"-"})
    rows = {}
    for line in lines[dashes + 1:]:
        if not line.strip():
            break           # the notes below the table
        method, _seconds, auc, pauc, tpr = line.split()[:5]
        rows[method] = (auc, pauc, tpr)
    return lines[:dashes], rows


def check_table_matches_json(table_out, json_out, fpr_range):
    header, rows = parse_table(table_out)
    a, b = fpr_range
    assert f"pAUC[{a:g},{b:g}]" in header[0] and f"TPR@{b:g}" in header[0]
    records = json.loads(json_out)
    assert [r["method"] for r in records] == list(rows) == METHODS
    for r in records:
        printed = tuple(f"{r[k]:.4f}" for k in ("test_auc", "test_pauc", "tpr_at_beta"))
        assert rows[r["method"]] == printed
        assert 0.5 < r["test_auc"] <= 1.0 and 0.0 <= r["test_pauc"] <= 1.0


@pytest.fixture
def svmlight_file(tmp_path):
    rng = np.random.default_rng(0)
    lines = []
    for _ in range(400):
        y = int(rng.random() < 0.3)
        x = rng.normal(size=5) + 0.8 * y
        lines.append(f"{2 * y - 1} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x)))
    path = tmp_path / "small.svm"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def csv_file(tmp_path):
    rng = np.random.default_rng(1)
    k = rng.integers(0, 2, 300)
    lines = ["x1,x2,x3,outcome"] + [
        f"{rng.normal() + c:.3f},{rng.normal() - 0.5 * c:.3f},{rng.normal():.3f},"
        f"{'sick' if c else 'well'}" for c in k]
    path = tmp_path / "small.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_svmlight_table_json_and_plot(tmp_path, svmlight_file):
    common = ["--data", str(svmlight_file), "--methods", *METHODS, "--fpr-range", "0", "0.2"]
    png = tmp_path / "roc.png"
    table = run(tmp_path, *common, "--plot", str(png))
    assert table.returncode == 0, table.stderr
    # The live progress line, one per method, on stderr only.
    assert "fitting logreg" in table.stderr and "fitting svm-auc" in table.stderr
    assert "fitting" not in table.stdout
    as_json = run(tmp_path, *common, "--json", "--quiet")
    assert as_json.returncode == 0, as_json.stderr
    assert as_json.stderr == ""
    check_table_matches_json(table.stdout, as_json.stdout, (0.0, 0.2))
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_csv_table_and_json(tmp_path, csv_file):
    common = ["--data", str(csv_file), "--label-column", "outcome", "--pos-label", "sick",
              "--methods", *METHODS, "--fpr-range", "0.05", "0.3", "--quiet"]
    table = run(tmp_path, *common)
    as_json = run(tmp_path, *common, "--json")
    assert table.returncode == 0 and as_json.returncode == 0, table.stderr + as_json.stderr
    check_table_matches_json(table.stdout, as_json.stdout, (0.05, 0.3))


@pytest.mark.parametrize("case, message", [
    ("missing file", "no such"),
    ("one class", "two classes"),
    ("invalid range", "fpr-range"),
    ("unknown method", "invalid choice: 'nope'"),
])
def test_errors_exit_2_with_message(tmp_path, case, message):
    one_class = tmp_path / "one.svm"
    one_class.write_text("1 1:1\n1 2:1\n1 1:0.5\n")
    args = {"missing file": ["--data", str(tmp_path / "absent.svm")],
            "one class": ["--data", str(one_class)],
            "invalid range": ["--fpr-range", "0.3", "0.1"],
            "unknown method": ["--methods", "nope"]}[case]
    result = run(tmp_path, *args, "--quiet", timeout=60)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""
