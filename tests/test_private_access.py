"""The boosting wing's seams hold (issue 35): no module of the package outside
``pauc/gbm`` reads a private attribute of a ``GradientBoostingRanker`` instance, and
``pauc/distributed`` imports at most two private modules of ``pauc.gbm``."""

import ast
from pathlib import Path

import pytest

from _boosting_problems import nonlinear
from pauc.gbm import GradientBoostingRanker

PACKAGE = Path(__file__).resolve().parents[1] / "pauc"


def _private_names():
    """Every private name a fitted ranker answers: its class's and its bases' methods
    and attributes, and what fit set on the instance."""
    X, y = nonlinear(300)
    model = GradientBoostingRanker((0.0, 0.2), n_estimators=5, n_iter_no_change=3, cv=2,
                                   random_state=0).fit(X, y)
    return {n for n in dir(model) if n.startswith("_") and not n.startswith("__")}


def _modules(outside):
    return [f for f in sorted(PACKAGE.rglob("*.py")) if f.relative_to(PACKAGE).parts[0]
            != outside]


def test_no_module_outside_gbm_reads_a_private_attribute_of_the_ranker():
    names = _private_names()
    assert {"_fitted", "_plan", "_trainer", "_publish"} <= names
    found = []
    for path in _modules("gbm"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Attribute) and node.attr in names):
                continue
            receiver = node.value
            # an object's own (self, cls, super()) or a class's constraints table
            if (isinstance(receiver, ast.Name) and (receiver.id in ("self", "cls")
                                                   or receiver.id[:1].isupper())) \
                    or ast.unparse(receiver) in ("super()", "type(estimator)"):
                continue
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: "
                         f"{ast.unparse(node)}")
    assert found == []


def _private_gbm_imports(path):
    """The private modules of pauc.gbm that ``path`` (a module of
    ``pauc/distributed``) imports, however the import is spelled."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        # the absolute dotted name: pauc/distributed's ".." is "pauc."
        module = node.module or ""
        if node.level == 2:
            module = "pauc." + module if module else "pauc"
        elif node.level == 1:
            module = "pauc.distributed." + module
        parts = module.split(".")
        if parts[:2] != ["pauc", "gbm"]:
            continue
        if len(parts) > 2 and parts[2].startswith("_"):
            out.add(parts[2])
        elif len(parts) == 2:
            out |= {a.name for a in node.names if a.name.startswith("_")}
    return out


def test_distributed_imports_at_most_two_private_gbm_modules():
    imported = set()
    for path in sorted((PACKAGE / "distributed").glob("*.py")):
        imported |= _private_gbm_imports(path)
    assert len(imported) <= 2, sorted(imported)
    assert imported == {"_plan", "_sample_weights"}


@pytest.mark.parametrize("source, expected", [
    ("from ..gbm._plan import Plan", {"_plan"}),
    ("from ..gbm import _race", {"_race"}),
    ("from pauc.gbm._ranker import X", {"_ranker"}),
    ("from ..gbm.objectives import as_scores", set()),
    ("from ..boost._stump import RankingStump", set()),
    ("from ..svm._design import Design", set()),
])
def test_the_import_scan_sees_every_spelling(tmp_path, source, expected):
    path = tmp_path / "m.py"
    path.write_text(source + "\n")
    assert _private_gbm_imports(path) == expected
