"""RankingForest (Clémençon, Depecker & Vayatis, "Ranking Forests", JMLR 2013, §3.3):
API, determinism, diagnostics, the out-of-bag AUC and the Table 1 acceptance."""

import pickle
import time
from fractions import Fraction

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from _sklearn_checks import DECISION_IS_A_SCORE, expected_failed_checks
from sklearn.utils.estimator_checks import parametrize_with_checks

from pauc.datasets import make_ranking_forest_data
from pauc.metrics import kendall_tau_distance, roc_auc, roc_auc_scorer
from pauc.tree import RankingForest, TreeRank
from pauc.tree._aggregation import AGGREGATIONS, midrank_tables


def small_forest(**kw):
    params = dict(n_estimators=8, max_depth=4, leafrank_max_depth=2, min_samples_split=10,
                  min_samples_leaf=3, random_state=0)
    params.update(kw)
    return RankingForest(**params)


@pytest.fixture(scope="module")
def rf20():
    X, y, _ = make_ranking_forest_data("RF20", 600, random_state=0)
    Xt, yt, _ = make_ranking_forest_data("RF20", 600, random_state=1)
    return X, y, Xt, yt


@parametrize_with_checks([small_forest(), small_forest(aggregation="mean_rank")],
                         expected_failed_checks=lambda est: expected_failed_checks(
                             check_classifiers_train=DECISION_IS_A_SCORE))
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("aggregation", AGGREGATIONS)
def test_every_aggregation_ranks_better_than_chance(rf20, aggregation):
    X, y, Xt, yt = rf20
    forest = small_forest(aggregation=aggregation, n_estimators=15).fit(X, y)
    assert roc_auc(yt, forest.decision_function(Xt)) > 0.6
    if aggregation == "kemeny":
        assert forest.consensus_cost_ <= forest.consensus_start_cost_


def test_n_jobs_does_not_change_the_result(rf20):
    X, y, Xt, _ = rf20
    one = small_forest(n_jobs=1, oob_score=True, compute_stability=True).fit(X, y)
    two = small_forest(n_jobs=2, oob_score=True, compute_stability=True).fit(X, y)
    np.testing.assert_array_equal(one.decision_function(Xt), two.decision_function(Xt))
    assert one.oob_score_ == two.oob_score_ and one.stability_ == two.stability_
    for a, b in zip(one.estimators_samples_, two.estimators_samples_):
        np.testing.assert_array_equal(a, b)


def test_n_jobs_bit_identical_with_default_trees(rf20):
    X, y, Xt, _ = rf20
    one = RankingForest(n_estimators=12, n_jobs=1, random_state=3).fit(X, y)
    two = RankingForest(n_estimators=12, n_jobs=2, random_state=3).fit(X, y)
    np.testing.assert_array_equal(one.decision_function(Xt), two.decision_function(Xt))
    assert one.consensus_cost_ == two.consensus_cost_
    for a, b in zip(one.estimators_, two.estimators_):
        for name in a.tree_._NODE_FIELDS + a.tree_._LEAFRANK_FIELDS:
            np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))


def test_each_tree_is_treerank_on_its_resample(rf20):
    """The trees are grown on the distinct rows with their bootstrap multiplicities
    (no copy of X); that must be the TreeRank of the resample with repetitions,
    FR1/FR2 draws included."""
    X, y, _, _ = rf20
    forest = RankingForest(n_estimators=4, max_features=12, leafrank_max_features=5,
                           min_samples_split=30, min_samples_leaf=8, random_state=7).fit(X, y)
    params = forest._tree_params()
    seeds = np.random.RandomState(7)
    for rows in forest.estimators_samples_:           # replay the forest's draws
        seeds.randint(0, X.shape[0], rows.size)
    seeds = seeds.randint(np.iinfo(np.int32).max, size=4)
    for tree, rows, seed in zip(forest.estimators_, forest.estimators_samples_, seeds):
        alone = TreeRank(**params, random_state=int(seed)).fit(X[rows], y[rows])
        for name in tree.tree_._NODE_FIELDS + tree.tree_._LEAFRANK_FIELDS:
            np.testing.assert_array_equal(getattr(tree.tree_, name), getattr(alone.tree_, name))
        np.testing.assert_array_equal(tree.apply(X), alone.apply(X))


def test_training_leaves_from_the_growth_equal_routing(rf20):
    """fit reads the in-bag rows' leaves from the growth and routes only the
    out-of-bag rows; the aggregation tables must be those of the routed leaves."""
    X, y, _, _ = rf20
    forest = small_forest(n_estimators=5).fit(X, y)
    routed = forest._leaves(X)
    n_leaves = [tree.n_leaves_ for tree in forest.estimators_]
    np.testing.assert_array_equal(forest._mean_rank_tables, midrank_tables(routed, n_leaves))
    assert forest.n_cells_ == np.unique(routed, axis=0).shape[0]


def test_stability_only_on_request(rf20):
    X, y, _, _ = rf20
    assert not hasattr(small_forest().fit(X, y), "stability_")


def test_pickle_roundtrip(rf20):
    X, y, Xt, _ = rf20
    forest = small_forest().fit(X, y)
    again = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(forest.decision_function(Xt), again.decision_function(Xt))


def test_pipeline_and_grid_search(rf20):
    X, y, _, _ = rf20
    pipe = make_pipeline(StandardScaler(), small_forest(n_estimators=4))
    grid = GridSearchCV(pipe, {"rankingforest__aggregation": ["kemeny", "mean_rank"]},
                        scoring=roc_auc_scorer(), cv=2).fit(X, y)
    assert grid.best_score_ > 0.55


def test_seen_cells_score_by_their_bucket_and_ties_follow_cells(rf20):
    X, y, _, _ = rf20
    forest = small_forest().fit(X, y)
    leaves = np.column_stack([t.apply(X) for t in forest.estimators_])
    scores = forest.decision_function(X)
    # points of the same cell get the same score; on training points all cells are seen
    _, inverse = np.unique(leaves, axis=0, return_inverse=True)
    for cell in np.unique(inverse)[:20]:
        assert np.unique(scores[inverse.ravel() == cell]).size == 1
    assert np.all(np.mod(scores, 2) == 1)                      # bucket levels 2j + 1


def test_stability_is_the_mean_pairwise_kendall_distance(rf20):
    X, y, Xt, _ = rf20
    forest = small_forest(n_estimators=5, compute_stability=True).fit(X, y)
    scores = [t.decision_function(Xt) for t in forest.estimators_]
    expected = np.mean([kendall_tau_distance(scores[b], scores[c], normalize=True)
                        for b in range(5) for c in range(b + 1, 5)])
    assert forest.stability(Xt) == pytest.approx(expected, abs=1e-12)
    assert 0 <= forest.stability_ <= 1


def pairwise_majority_oob(forest, X, y):
    """The out-of-bag AUC of pauc up to 7c47197: every (positive, negative) pair
    decided by a majority vote of the trees whose resample holds neither point,
    ½ for a tied vote.  O(n+ n- B): kept here as a reference only."""
    scores = np.column_stack([t.decision_function(X) for t in forest.estimators_])
    oob = np.ones_like(scores, dtype=bool)
    for b, rows in enumerate(forest.estimators_samples_):
        oob[rows, b] = False
    total, pairs = 0.0, 0
    for i in np.flatnonzero(y == 1):
        for j in np.flatnonzero(y == 0):
            trees = oob[i] & oob[j]
            if trees.any():
                up = (scores[i, trees] > scores[j, trees]).sum()
                down = (scores[i, trees] < scores[j, trees]).sum()
                total += 1.0 if up > down else (0.5 if up == down else 0.0)
                pairs += 1
    return total / pairs


def brute_force_oob(forest, X, y):
    """Each training point scored by the mean, over the trees whose resample does
    not hold it, of its leaf's mid-rank among the training points (the
    mean-rank aggregation of those trees); then the AUC over all pairs of such
    points, ½ per tie -- by loops, in exact rationals."""
    n = X.shape[0]
    leaves = np.column_stack([t.apply(X) for t in forest.estimators_])
    score = {}
    for i in range(n):
        parts = []
        for b, rows in enumerate(forest.estimators_samples_):
            if i in set(rows.tolist()):
                continue
            # Mid-rank of the leaf (App. A, ascending: leaf 0 ranked highest).
            below = sum(leaves[k, b] > leaves[i, b] for k in range(n))
            tied = sum(leaves[k, b] == leaves[i, b] for k in range(n))
            parts.append(Fraction(2 * below + tied, 2 * n))
        if parts:
            score[i] = sum(parts) / len(parts)
    pos = [i for i in score if y[i] == 1]
    neg = [j for j in score if y[j] == 0]
    wins = sum(Fraction(1) if score[i] > score[j] else Fraction(1, 2) if score[i] == score[j]
               else Fraction(0) for i in pos for j in neg)
    return wins / (len(pos) * len(neg))


@pytest.mark.parametrize("n_estimators", [3, 6])
def test_oob_score_against_brute_force(n_estimators):
    X, y, _ = make_ranking_forest_data("RF10-sparse", 80, random_state=3)
    forest = small_forest(n_estimators=n_estimators, oob_score=True).fit(X, y)
    assert forest.oob_score_ == pytest.approx(float(brute_force_oob(forest, X, y)), abs=1e-12)


def test_oob_score_of_one_tree_is_the_pairwise_vote_of_before():
    """With one tree the per-point and the per-pair out-of-bag AUCs are the same
    number: the tree's AUC on the pairs it did not see."""
    X, y, _ = make_ranking_forest_data("RF10-sparse", 120, random_state=4)
    forest = small_forest(n_estimators=1, oob_score=True).fit(X, y)
    assert forest.oob_score_ == pytest.approx(pairwise_majority_oob(forest, X, y), abs=1e-12)


def test_oob_score_scales_to_many_rows():
    """n = 200,000 rows and 50 trees: the estimate is one pass over the (row, tree)
    leaves and one sort, never the n+ n- pairs (at 7c47197, O(n+ n- B): hours).
    Checked against the same estimate written independently with scikit-learn."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    n, n_trees, n_leaves = 200_000, 50, 40
    y = rng.random(n) < 0.3
    signal = np.where(y, 1.0, 0.0) + rng.normal(size=n)
    leaves = np.column_stack([np.clip(((3 - signal + rng.normal(size=n)) * 6).astype(int), 0,
                                      n_leaves - 1) for _ in range(n_trees)]).astype(np.int32)
    forest = RankingForest(n_estimators=n_trees)
    forest.estimators_samples_ = [np.sort(rng.integers(0, n, n)) for _ in range(n_trees)]
    forest._mean_rank_tables = midrank_tables(leaves, [n_leaves] * n_trees)
    got = forest._oob_auc(leaves, y)
    oob = np.ones((n, n_trees), dtype=bool)
    for b, rows in enumerate(forest.estimators_samples_):
        oob[rows, b] = False
    table_scores = np.take_along_axis(forest._mean_rank_tables.T, leaves, axis=0)
    seen = oob.any(axis=1)
    mean = (table_scores * oob).sum(axis=1)[seen] / oob.sum(axis=1)[seen]
    assert got == pytest.approx(roc_auc_score(y[seen], mean), abs=1e-9)


def test_transductive_ranking_ties_points_of_a_cell(rf20):
    X, y, Xt, yt = rf20
    forest = small_forest(n_estimators=10).fit(X, y)
    ranks = forest.rank_transductive(Xt)
    assert ranks.shape == (Xt.shape[0],)
    assert roc_auc(yt, ranks) > 0.6


def test_resampling_options(rf20):
    X, y, _, _ = rf20
    forest = small_forest(max_samples=0.5, bootstrap=False).fit(X, y)
    for rows in forest.estimators_samples_:
        assert rows.size == 300 and np.unique(rows).size == 300
    forest = small_forest(max_samples=100).fit(X, y)
    assert all(rows.size == 100 for rows in forest.estimators_samples_)


@pytest.mark.parametrize("params, match", [
    (dict(aggregation="borda"), "aggregation"),
    (dict(n_estimators=0), "n_estimators"),
    (dict(max_samples=1.5), "max_samples"),
    (dict(max_samples=10_000, bootstrap=False), "max_samples"),
    (dict(kemeny_n_iter=-3), "kemeny_n_iter"),
    (dict(max_cells=1), "max_cells"),
])
def test_invalid_parameters(rf20, params, match):
    X, y, _, _ = rf20
    with pytest.raises(ValueError, match=match):
        small_forest(**params).fit(X, y)


def test_one_class_is_refused(rf20):
    X, _, _, _ = rf20
    with pytest.raises(ValueError, match="only one class"):
        small_forest().fit(X, np.ones(X.shape[0]))


# ------------------------------------------------------------------ Table 1 acceptance
def _mean_test_auc(name, q0, q1, leafrank_depth, runs):
    Xt, yt, bayes_score = make_ranking_forest_data(name, 3000, random_state=10_000)
    forest_auc, tree_auc = [], []
    for run in range(runs):
        X, y, _ = make_ranking_forest_data(name, 2000, random_state=run)
        forest = RankingForest(n_estimators=50, max_depth=10, leafrank_max_depth=leafrank_depth,
                               max_features=q0, leafrank_max_features=q1, n_jobs=2,
                               random_state=run).fit(X, y)
        forest_auc.append(roc_auc(yt, forest.decision_function(Xt)))
        tree = TreeRank(max_depth=10, leafrank_max_depth=leafrank_depth,
                        random_state=run).fit(X, y)
        tree_auc.append(roc_auc(yt, tree.decision_function(Xt)))
    return float(np.mean(forest_auc)), float(np.mean(tree_auc)), roc_auc(yt, bayes_score(Xt))


@pytest.fixture(scope="module")
def table1_ten_runs():
    """Issue 6 protocol with 10 runs: RF 20 Case 7 (q0 = q1 = 5, LeafRank depth 10) and
    RF 10 sparse Case 2 (q0 = 10, q1 = 5, LeafRank depth 7); B = 50, n = 2000, test 3000."""
    start = time.perf_counter()
    rf20_forest, rf20_tree, rf20_star = _mean_test_auc("RF20", 5, 5, 10, runs=10)
    sparse_forest, sparse_tree, _ = _mean_test_auc("RF10-sparse", 10, 5, 7, runs=10)
    print(f"\nRF20 case 7: forest {rf20_forest:.4f}, TreeRank {rf20_tree:.4f}, "
          f"test-set AUC* {rf20_star:.4f}; "
          f"RF10 sparse case 2: forest {sparse_forest:.4f}, TreeRank {sparse_tree:.4f}; "
          f"{time.perf_counter() - start:.0f} s")
    return rf20_forest, rf20_tree, sparse_forest, rf20_star


@pytest.mark.slow(seconds=3)
def test_table1_rf20_treerank_row_with_the_oblique_mean_shift():
    """The paper leaves RF 20's mean direction open; spread over the 20 features
    ("oblique") it reproduces Table 1's single TreeRank row: 10 runs give 0.619 on
    this test set (AUC* 0.792) where the paper has 0.605 at AUC* 0.773, while the
    axis reading gives 0.692 (a single split on the one mean feature does well)."""
    Xt, yt, bayes_score = make_ranking_forest_data("RF20", 3000, random_state=10_000,
                                                   orientation="oblique")
    aucs = []
    for run in range(10):
        X, y, _ = make_ranking_forest_data("RF20", 2000, random_state=run,
                                           orientation="oblique")
        tree = TreeRank(max_depth=10, leafrank_max_depth=10, random_state=run).fit(X, y)
        aucs.append(roc_auc(yt, tree.decision_function(Xt)))
    paper_at_this_test_set = 0.605 + (roc_auc(yt, bayes_score(Xt)) - 0.773)
    assert abs(np.mean(aucs) - paper_at_this_test_set) <= 0.015, (np.mean(aucs), aucs)


@pytest.mark.slow(seconds=20)
@pytest.mark.xdist_group("table1_ten_runs")     # one worker computes the fixture
def test_table1_forest_beats_single_treerank_and_sparse_case_2(table1_ten_runs):
    rf20_forest, rf20_tree, sparse_forest, _ = table1_ten_runs
    assert rf20_tree <= rf20_forest
    assert sparse_forest >= 0.87                       # paper 0.88


@pytest.mark.slow(seconds=20)
@pytest.mark.xdist_group("table1_ten_runs")     # one worker computes the fixture
@pytest.mark.xfail(strict=False, reason=(
    "issue 6 gap: RF 20 Case 7 (q0 = q1 = 5) reaches 0.7407 on this 3000-point test set, "
    "whose own AUC* is 0.790 (population 0.775, paper's test set 0.773), i.e. 0.049 below "
    "AUC* where the paper's forest is 0.023 below; on a 20000-point test set (AUC* 0.776) "
    "5 runs give 0.730, against 0.737-0.741 for Cases 1, 2, 4, 8, 9 (paper 0.743-0.748). "
    "With RF 20's mean shift spread over the features (orientation='oblique', which "
    "reproduces the TreeRank row), Case 7 is 0.749 on this test set and 0.734 on a "
    "20000-point one (AUC* 0.778, 10 runs): still 0.011-0.016 short once the test "
    "sets' AUC* are accounted for"))
def test_table1_rf20_case7_reaches_paper_level(table1_ten_runs):
    # The paper's 0.75 was measured on a test set with AUC* 0.773; a 3000-point
    # test set's own AUC* varies by +-0.015, so the target 0.74 is moved by the
    # difference (a lucky test set must not pass a weaker forest).
    forest, _, _, auc_star = table1_ten_runs
    assert forest >= 0.74 + (auc_star - 0.773)         # paper 0.75 at AUC* 0.773
