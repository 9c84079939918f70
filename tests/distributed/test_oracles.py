"""The public oracles on chunked (dask) scores equal the in-memory ones, and the
per-chunk steps they share with the chunked fits (pauc.distributed._chunks)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

from _chunked_problems import as_dask, chunked_problems  # noqa: E402

from pauc.distributed._chunks import straddling_value, window_coef, window_plan  # noqa: E402
from pauc.svm.oracles import auc_oracle, pauc_naive_oracle, pauc_tight_oracle  # noqa: E402


@pytest.mark.slow(seconds=15)
@settings(max_examples=500, deadline=None)
@given(chunked_problems(), st.data())
def test_chunked_tight_oracle_equals_in_memory(problem, data):
    scores, labels, chunks = problem
    n_neg = int((~labels).sum())
    j_alpha = data.draw(st.integers(0, n_neg - 1))
    j_beta = data.draw(st.integers(j_alpha + 1, n_neg))
    with dask.config.set(scheduler="synchronous"):
        coef, loss = pauc_tight_oracle(*as_dask(chunks, scores, labels), j_alpha, j_beta)
        coef = coef.compute()
    expected_coef, expected_loss = pauc_tight_oracle(scores, labels, j_alpha, j_beta)
    np.testing.assert_array_equal(coef, expected_coef)
    assert loss == expected_loss


@pytest.mark.slow(seconds=12)
@settings(max_examples=500, deadline=None)
@given(chunked_problems())
def test_chunked_auc_oracle_equals_in_memory(problem):
    scores, labels, chunks = problem
    with dask.config.set(scheduler="synchronous"):
        coef, loss = auc_oracle(*as_dask(chunks, scores, labels))
        coef = coef.compute()
    expected_coef, expected_loss = auc_oracle(scores, labels)
    np.testing.assert_array_equal(coef, expected_coef)
    assert loss == expected_loss


def test_chunked_oracle_rejects_bad_input(synchronous):
    scores = da.from_array(np.array([0.0, np.nan, 1.0, 2.0]), chunks=2)
    y = da.from_array(np.array([True, False, False, True]), chunks=2)
    with pytest.raises(ValueError, match="NaN or infinity"):
        auc_oracle(scores, y)
    good = da.from_array(np.arange(4.0), chunks=2)
    with pytest.raises(ValueError, match="not aligned"):
        auc_oracle(good, y.rechunk(3))
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        auc_oracle(good[good > 0], y[:3])
    with pytest.raises(ValueError, match="one class"):
        pauc_tight_oracle(good, da.zeros(4, chunks=2, dtype=bool), 0, 1)
    with pytest.raises(ValueError, match="exceeds"):
        pauc_tight_oracle(good, y, 0, 3)
    # the surrogate table says which searches have a chunked version
    with pytest.raises(NotImplementedError, match="naive"):
        pauc_naive_oracle(good, y, 0, 1)
    with pytest.raises(NotImplementedError, match="sample_weight"):
        auc_oracle(good, y, sample_weight=np.ones(4))


@settings(max_examples=500, deadline=None)
@given(chunked_problems(), st.data())
def test_tie_ranks_across_chunks_follow_row_order(problem, data):
    """The negatives' ranks when the rows ``r_i`` do split a tie group at ``j_alpha``.

    Exact scores never produce it (see ``straddling_value``), rounding can:
    here the rows are drawn directly -- ``j_alpha`` or a count ``#{T > q}`` --
    and the coefficients are checked against ranking the selected negatives
    by (score, row number), as the in-memory key sort does.
    """
    scores, labels, chunks = problem
    n_neg = int((~labels).sum())
    j_alpha = data.draw(st.integers(0, n_neg - 1))
    j_beta = data.draw(st.integers(j_alpha + 1, n_neg))
    neg_rows = np.flatnonzero(~labels)
    order = np.lexsort((neg_rows, -scores[neg_rows]))       # top first, ties: first rows
    selected = neg_rows[order[:j_beta]]
    top = np.sort(scores[selected])
    bounds = np.cumsum((0,) + chunks)
    rows_of, borders, coefs = [], [], []
    for k in range(len(chunks)):
        s, pos = scores[bounds[k]:bounds[k + 1]], labels[bounds[k]:bounds[k + 1]]
        rows = np.array([j_alpha if data.draw(st.booleans())
                         else int((top > data.draw(st.sampled_from([-9.0, *top, 9.0]))).sum())
                         for _ in range(int(pos.sum()))], dtype=np.int64)
        neg = s[~pos]
        straddle = straddling_value(top, j_alpha)
        coef = np.zeros(s.shape[0])
        coef[pos] = rows            # the positives' part (inv_n = 1)
        rows_of.append(rows)
        coefs.append(coef)
        borders.append({"hist": np.bincount(rows, minlength=j_beta + 1),
                        "loss": 0, "above": int((neg > top[0]).sum()),
                        "at": int((neg == top[0]).sum()),
                        "straddle": 0 if straddle is None else int((neg == straddle).sum())})
    hist = np.sum([b["hist"] for b in borders], axis=0)
    plan = window_plan(j_alpha, j_beta, top, hist, borders)
    coef = np.concatenate([
        window_coef(scores[bounds[k]:bounds[k + 1]], labels[bounds[k]:bounds[k + 1]],
                    top, coefs[k], borders[k], plan, k, 1.0, None)[0]
        for k in range(len(chunks))])
    # reference: ascending by (score, row); rank from the top j = size - position
    ascending = selected[np.lexsort((selected, scores[selected]))]
    expected = np.zeros_like(coef)
    all_rows = np.concatenate(rows_of)
    expected[labels] = all_rows
    counts = np.array([np.count_nonzero(all_rows >= j) for j in range(j_beta + 1)])
    expected[ascending] = -counts[j_beta - np.arange(j_beta)]
    np.testing.assert_array_equal(coef, expected)
