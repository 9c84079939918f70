"""The engines of :class:`pauc.gbm.GradientBoostingRanker`, in one registry.

Each engine implements :class:`~pauc.gbm.engines._interface.Engine` in its
own module: LightGBM (:mod:`._lightgbm`), XGBoost (:mod:`._xgboost`, with its
stopping callback in :mod:`._xgboost_stopping`) and pauc's oblivious trees
(:mod:`._oblivious`).  The fit names an engine (:func:`get_engine`); a fitted
model asks each of its boosters which engine grew it (:func:`engine_of`, by
the booster's type).
"""

from ._interface import Engine, Session, effective_threads, held_out_logloss
from ._lightgbm import LightGBMEngine
from ._oblivious import ObliviousEngine
from ._xgboost import XGBoostEngine

__all__ = ["ENGINES", "SELECTABLE", "Engine", "Session", "get_engine", "engine_of",
           "effective_threads", "held_out_logloss"]

ENGINES = {engine.name: engine for engine in (LightGBMEngine(), XGBoostEngine(),
                                              ObliviousEngine())}
# the engines the estimator's ``engine=`` may name (the others serve candidates)
SELECTABLE = tuple(name for name, engine in ENGINES.items() if engine.selectable)


def get_engine(name):
    """The engine called ``name`` (``"lightgbm"``, ``"xgboost"`` or ``"oblivious"``)."""
    return ENGINES[name]


def engine_of(booster):
    """The engine that grew ``booster``, known by the booster's type."""
    for engine in ENGINES.values():
        if engine.grew(booster):
            return engine
    raise TypeError(f"no engine of GradientBoostingRanker grows a {type(booster).__name__}")
