"""The bundled a9a split and the svmlight loader."""

import bz2

import numpy as np
import pytest
import scipy.sparse as sp

from pauc.datasets import load_a9a, load_svmlight


def test_a9a_shapes_and_labels():
    X_train, y_train, X_test, y_test = load_a9a()
    assert X_train.shape == (32_561, 123) and X_test.shape == (16_281, 123)
    assert sp.isspmatrix_csr(X_train) and sp.isspmatrix_csr(X_test)
    assert set(np.unique(y_train)) == {0, 1} and set(np.unique(y_test)) == {0, 1}
    assert y_train.mean() == pytest.approx(0.241, abs=0.001)
    assert y_test.mean() == pytest.approx(0.236, abs=0.001)
    assert set(np.unique(X_train.data)) == {1.0}       # binary features


def test_loaded_matrices_work_with_liblinear():
    """load_svmlight_file's int64 indices are narrowed: LinearSVC (liblinear) refuses
    int64-indexed CSR, and the matrix must be the same one."""
    from sklearn.datasets import load_svmlight_file
    from sklearn.svm import LinearSVC

    from pauc.datasets._svmlight import _DATA

    X_train, y_train, _, _ = load_a9a()
    assert X_train.indices.dtype == np.int32 and X_train.indptr.dtype == np.int32
    LinearSVC(C=0.1).fit(X_train, y_train)
    raw, _ = load_svmlight_file(str(_DATA / "a9a.trn.bz2"), n_features=123)
    assert (X_train != raw).nnz == 0


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


def test_load_svmlight_maps_labels_to_01(tmp_path):
    f = _write(tmp_path / "d.svm", ["-1 1:0.5 3:1", "+1 2:2", "1 1:1"])
    X, y = load_svmlight(f)
    assert X.shape == (3, 3) and y.tolist() == [0, 1, 1]


def test_load_svmlight_reads_bz2(tmp_path):
    f = tmp_path / "d.svm.bz2"
    f.write_bytes(bz2.compress(b"0 1:1\n1 2:1\n"))
    X, y = load_svmlight(f, n_features=4)
    assert X.shape == (2, 4) and y.tolist() == [0, 1]


def test_load_svmlight_pos_label(tmp_path):
    f = _write(tmp_path / "d.svm", ["3 1:1", "7 2:1", "7 1:1"])
    with pytest.raises(ValueError, match="pos_label"):
        load_svmlight(f)
    X, y = load_svmlight(f, pos_label=3)
    assert y.tolist() == [1, 0, 0]


@pytest.mark.parametrize("lines, message", [(["1 1:1", "1 2:1"], "two classes"),
                                            (["1 1:1", "2 2:1", "3 1:1"], "two classes")])
def test_load_svmlight_refuses_non_binary(tmp_path, lines, message):
    with pytest.raises(ValueError, match=message):
        load_svmlight(_write(tmp_path / "d.svm", lines))


def test_load_svmlight_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such"):
        load_svmlight(tmp_path / "nope.svm")


# ---------------------------------------------------------------- CSV (issue 21)

from pauc.datasets import load_csv  # noqa: E402


def test_csv_header_with_utf8_bom(tmp_path):
    """Spreadsheet exports start with a byte-order mark: it is not part of the first name."""
    path = tmp_path / "bom.csv"
    path.write_text("label,a,b\n1,0.5,2\n0,1.5,3\n", encoding="utf-8-sig")
    X, y, names = load_csv(path, label_column="label", return_feature_names=True)
    assert names == ["a", "b"] and y.tolist() == [1, 0]
    np.testing.assert_array_equal(X, [[0.5, 2.0], [1.5, 3.0]])


def test_csv_numeric_labels_are_numbers(tmp_path):
    """"1" and "1.0" are one class; --pos-label "1" names the label 1.0."""
    path = _write(tmp_path / "d.csv", ["a,y", "1,1", "2,1.0", "3,0", "4,0.0", "5,1"])
    X, y = load_csv(path, label_column="y")
    assert y.tolist() == [1, 1, 0, 0, 1]
    assert load_csv(path, label_column="y", pos_label="1")[1].tolist() == [1, 1, 0, 0, 1]
    assert load_csv(path, label_column="y", pos_label="0.0")[1].tolist() == [0, 0, 1, 1, 0]
    assert load_csv(path, label_column="y", pos_label=0)[1].tolist() == [0, 0, 1, 1, 0]
    floats = _write(tmp_path / "f.csv", ["a,y", "1,1.0", "2,0.0"])
    assert load_csv(floats, label_column="y", pos_label="1")[1].tolist() == [1, 0]


def test_csv_boolean_and_string_labels(tmp_path):
    path = _write(tmp_path / "b.csv", ["a,y", "1,True", "2,false", "3,TRUE"])
    assert load_csv(path, label_column="y")[1].tolist() == [1, 0, 1]
    assert load_csv(path, label_column="y", pos_label="False")[1].tolist() == [0, 1, 0]
    strings = _write(tmp_path / "s.csv", ["a,y", "1,fraud", "2,legit", "3,legit"])
    with pytest.raises(ValueError, match="pass pos_label"):
        load_csv(strings, label_column="y")
    assert load_csv(strings, label_column="y", pos_label="fraud")[1].tolist() == [1, 0, 0]


def test_csv_feature_names_match_columns_by_name(tmp_path):
    train = _write(tmp_path / "train.csv", ["a,b,c,label", "1,2,3,0", "4,5,6,1"])
    test = _write(tmp_path / "test.csv", ["c,label,b,a", "3,0,2,1", "6,1,5,4"])
    X, y, names = load_csv(train, label_column="label", return_feature_names=True)
    X2, y2, names2 = load_csv(test, label_column="label", feature_names=names,
                              return_feature_names=True)
    assert names == names2 == ["a", "b", "c"]
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    with pytest.raises(ValueError, match="more than once"):
        load_csv(test, label_column="label", feature_names=["a", "a", "b"])


def test_svmlight_uses_the_package_rule(tmp_path):
    f = _write(tmp_path / "m.svm", ["-1 1:1", "0 2:1", "0 1:1"])
    with pytest.raises(ValueError, match="pass pos_label"):
        load_svmlight(f)
    assert load_svmlight(f, pos_label=0)[1].tolist() == [0, 1, 1]
    assert load_svmlight(f, pos_label=-1)[1].tolist() == [1, 0, 0]
    g = _write(tmp_path / "g.svm", ["1 1:1", "2 2:1"])
    with pytest.raises(ValueError, match="pass pos_label"):
        load_svmlight(g)
