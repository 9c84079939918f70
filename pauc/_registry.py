"""The rankers the command line knows, in one place.

Each entry names an estimator class by import path (imported only when used,
so a missing optional family never breaks the others) and says how to build
it for a given FPR range.  A new estimator appears in ``pauc compare`` by
adding one entry here; the command-line code does not change.
"""

from dataclasses import dataclass, field
from importlib import import_module


@dataclass(frozen=True)
class Method:
    name: str
    target: str                     # "module:Class"
    description: str
    params: dict = field(default_factory=dict)
    uses_fpr_range: bool = False    # pass fpr_range=(alpha, beta) to the constructor

    def make(self, fpr_range, **overrides):
        module, cls = self.target.split(":")
        params = dict(self.params)
        if self.uses_fpr_range:
            params["fpr_range"] = tuple(fpr_range)
        params.update(overrides)
        return getattr(import_module(module), cls)(**params)


METHODS = {
    m.name: m
    for m in [
        Method("logreg", "sklearn.linear_model:LogisticRegression",
               "scikit-learn's logistic regression (the familiar baseline)",
               {"C": 1.0, "max_iter": 1000}),
    ]
}
