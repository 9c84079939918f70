"""The engines' one registry: each engine known by name, and a booster's engine by its type."""

import numpy as np
import pytest

from pauc.gbm import GradientBoostingRanker
from pauc.gbm.engines import ENGINES, SELECTABLE, Engine, engine_of, get_engine


def _booster(name, X, is_pos):
    engine = get_engine(name)
    params = engine.params({"learning_rate": 0.1, "num_leaves": 7, "min_data_in_leaf": 5,
                            "lambda_l2": 0.0} if name != "oblivious" else {}, {}, 0, 1)
    return engine.boost(params, "logloss", (0.0, 0.2), 5, (X, is_pos))


@pytest.mark.parametrize("name", ["lightgbm", "xgboost", "oblivious"])
def test_a_booster_is_known_by_its_type(name):
    if name == "xgboost":
        pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    is_pos = X[:, 0] + rng.normal(size=300) > 0.5
    booster = _booster(name, X, is_pos)
    engine = engine_of(booster)
    assert engine is ENGINES[name] and engine.name == name
    # each engine claims its own boosters only
    assert [e.name for e in ENGINES.values() if e.grew(booster)] == [name]
    assert engine.n_rounds(booster) == 5
    assert engine.predict(booster, X, 5).shape == (300,)


def test_an_unknown_booster_is_a_type_error():
    with pytest.raises(TypeError, match="no engine of GradientBoostingRanker grows a dict"):
        engine_of({"not": "a booster"})


def test_one_registry_serves_the_estimator_and_the_candidates():
    assert set(ENGINES) == {"lightgbm", "xgboost", "oblivious"}
    assert all(isinstance(e, Engine) and get_engine(n) is e for n, e in ENGINES.items())
    # the estimator's engine= names the selectable ones; the oblivious trees serve candidates
    assert SELECTABLE == ("lightgbm", "xgboost")
    with pytest.raises(ValueError, match="engine"):
        GradientBoostingRanker(engine="oblivious").fit(np.zeros((20, 2)), np.arange(20) % 2)
