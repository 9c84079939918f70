"""Every public estimator's docstring has an Examples section, and it runs as a doctest."""

import doctest
import inspect

import pytest

import pauc
from pauc.boost import AUCBoost, MartiRank, RankingStump
from pauc.gbm import GradientBoostingRanker
from pauc.svm import AUCSVM, AUCSVMCV, PartialAUCSVM, PartialAUCSVMCV
from pauc.tree import RankingForest, TreeRank

ESTIMATORS = [AUCSVM, PartialAUCSVM, AUCSVMCV, PartialAUCSVMCV, AUCBoost, MartiRank,
              RankingStump, GradientBoostingRanker, TreeRank, RankingForest]


def test_the_list_holds_every_public_estimator():
    public = {getattr(pauc, name) for name in pauc.__all__}
    estimators = {obj for obj in public if inspect.isclass(obj) and hasattr(obj, "fit")}
    assert estimators <= set(ESTIMATORS), estimators - set(ESTIMATORS)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_examples_run_as_doctests(estimator):
    assert "\n    Examples\n    --------\n" in estimator.__doc__, estimator.__name__
    finder = doctest.DocTestFinder(recurse=False)
    tests = [t for t in finder.find(estimator, estimator.__name__) if t.examples]
    assert tests, f"{estimator.__name__}: no doctest"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{estimator.__name__}: {result.failed} example(s) failed"
