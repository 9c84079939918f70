"""The import structure of the package: no cycles, Dask only in pauc.distributed.

* a static scan of every ``import`` / ``cimport`` of ``pauc/`` (module level and
  inside functions) finds no cycle between the package's modules, counting the
  edge to every package ``__init__`` that an import runs: ``import pauc.boost.x``
  from outside ``pauc/boost`` first runs ``pauc/boost/__init__.py`` (and what it
  imports), while inside ``pauc/boost`` that ``__init__`` is already running;
* ``pauc/svm`` and ``pauc/metrics.py`` name neither ``dask``, ``distributed`` nor
  ``pauc.distributed``: chunked input reaches them only through
  :mod:`pauc._dispatch`, which loads :mod:`pauc.distributed` by name on first use
  (the one dependency that points back, at run time, by design);
* every module imports in a fresh interpreter, and ``import pauc`` imports no dask.
"""

import ast
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pauc

# The sources: the repository's pauc/ (an installed package holds no .pyx, and its
# compiled modules cannot be read), else the installed one.
_REPO_SOURCES = Path(__file__).resolve().parents[1] / "pauc"
PACKAGE = (_REPO_SOURCES if (_REPO_SOURCES / "__init__.py").exists()
           else Path(pauc.__file__).resolve().parent)
SOURCES = sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".pyx", ".pxd"))

# from X import a, b  |  from X cimport a  |  import X, Y  |  cimport X
_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(\S+)\s+c?import\s+(.+)|c?import\s+(.+))$")


def _module_of(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_of(p) for p in SOURCES}


def _absolute(module, level, path):
    """The absolute name of ``from <level dots><module> import ...`` in ``path``."""
    if not level:
        return module
    package = _module_of(path).split(".")
    if path.stem != "__init__":
        package = package[:-1]
    package = package[:len(package) - (level - 1)]
    return ".".join(package + ([module] if module else []))


def _imports(path):
    """``(imported module, names)`` of every import statement of a source file."""
    text = path.read_text()
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield alias.name, ()
            elif isinstance(node, ast.ImportFrom):
                yield (_absolute(node.module or "", node.level, path),
                       tuple(alias.name for alias in node.names))
        return
    for line in text.splitlines():
        match = _CYTHON_IMPORT.match(line.split("#")[0])
        if not match:
            continue
        if match.group(1):
            module = match.group(1)
            level = len(module) - len(module.lstrip("."))
            names = tuple(n.strip(" ()") for n in match.group(2).split(","))
            yield _absolute(module.lstrip("."), level, path), names
        else:
            for name in match.group(3).split(","):
                yield name.split()[0], ()


def _runs(source, target):
    """The modules that importing ``target`` from ``source`` runs: ``target`` and every
    package ``__init__`` above it, less the packages that hold ``source`` (Python
    initialises those before ``source`` itself)."""
    parts = target.split(".")
    chain = {".".join(parts[:k]) for k in range(1, len(parts) + 1)}
    return {module for module in chain
            if module in MODULES and not (source == module or source.startswith(module + "."))}


def _edges():
    """Module -> the package's modules that its imports run."""
    graph = {module: set() for module in MODULES}
    for path in SOURCES:
        source = _module_of(path)
        for module, names in _imports(path):
            targets = {f"{module}.{name}" for name in names} & MODULES or {module}
            for target in targets:
                graph[source] |= _runs(source, target)
    return graph


def _cycles(graph):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_scan_sees_the_imports():
    graph = _edges()
    assert "pauc.svm._design" in graph["pauc.svm._cutting_plane"]
    assert "pauc._ranking" in graph["pauc._loss._structural"]       # a cimport
    assert "pauc.metrics" in graph["pauc._base"]                   # from . import metrics
    assert "pauc.svm._estimators" in graph["pauc.distributed._svm_fit"] or \
        "pauc.svm._design" in graph["pauc.distributed._graphs"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_scan_sees_package_init_edges():
    """An import from outside a package runs its ``__init__``; from inside it does not."""
    assert _runs("pauc.objectives", "pauc.gbm.objectives") == {"pauc.gbm", "pauc.gbm.objectives"}
    assert _runs("pauc.gbm._ranker", "pauc.boost._stump") == {"pauc.boost", "pauc.boost._stump"}
    assert _runs("pauc.gbm._plan", "pauc.gbm.engines._lightgbm") == {
        "pauc.gbm.engines", "pauc.gbm.engines._lightgbm"}
    assert _runs("pauc.gbm.engines._lightgbm", "pauc.gbm.objectives") == {"pauc.gbm.objectives"}
    assert _runs("pauc.gbm", "pauc.gbm._ranker") == {"pauc.gbm._ranker"}
    assert _runs("pauc.svm._design", "pauc.metrics") == {"pauc.metrics"}
    graph = _edges()
    assert "pauc.svm" in graph["pauc.distributed._graphs"]          # from ..svm._design
    assert "pauc._loss" in graph["pauc.gbm.objectives"]
    assert "pauc.inference" in graph["pauc.metrics"]                # from .inference._x


def test_no_import_cycle_in_the_package():
    assert _cycles(_edges()) == []


def test_in_memory_code_names_no_dask():
    """pauc/svm and pauc/metrics.py hand chunked input over through pauc._dispatch."""
    scanned = [p for p in SOURCES
               if p.relative_to(PACKAGE).parts[0] == "svm" or p.name == "metrics.py"]
    assert len(scanned) > 10
    offending = [(str(p.relative_to(PACKAGE)), module)
                 for p in scanned for module, _ in _imports(p)
                 if module.split(".")[0] in ("dask", "distributed")
                 or module.startswith("pauc.distributed")]
    assert offending == []


def test_every_module_imports_in_a_fresh_interpreter(tmp_path):
    """Every module of the repository's sources (a ``.py`` or a ``.pyx``), imported from
    the package as installed: a module that a ``meson.build`` does not install imports
    from the source tree and fails here once installed (the installed package's own
    listing would not name it)."""
    names = sorted({_module_of(p) for p in SOURCES if p.suffix in (".py", ".pyx")})
    installed = {info.name for info in pkgutil.walk_packages(pauc.__path__, "pauc.")}
    assert {"pauc.svm._design", "pauc.distributed._actors", "pauc.gbm.engines._lightgbm",
            "pauc.inference._bootstrap"} <= set(names)
    assert set(names) - {"pauc"} <= installed, sorted(set(names) - {"pauc"} - installed)
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n"
            "    importlib.import_module(name)\n")
    # not the repository root: "python -c" would put its uncompiled pauc/ first
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)


def test_import_pauc_does_not_import_dask(tmp_path):
    code = ("import sys, pauc, pauc.metrics, pauc.svm, pauc.svm.oracles;"
            "assert 'dask' not in sys.modules, 'dask imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)


def test_the_root_holds_at_most_16_modules():
    """Kernels and infrastructure only: each family has its folder (issue 45)."""
    root = {p.stem for p in PACKAGE.glob("*") if p.suffix in (".py", ".pyx", ".pxd")}
    assert len(root - {"__init__", "__main__"}) <= 16, sorted(root)


def test_no_module_of_distributed_shares_a_name_with_another_folders():
    names = {}
    for p in SOURCES:
        names.setdefault(p.stem, set()).add(p.parent.relative_to(PACKAGE).as_posix())
    clashes = {n: sorted(folders) for n, folders in names.items()
               if "distributed" in folders and len(folders) > 1 and n != "__init__"}
    assert clashes == {}


_API = Path(__file__).resolve().parents[1] / "docs" / "api.rst"


def _api_reference():
    """``(module, name)`` of every entry of the API reference's autosummaries."""
    module, entries, in_summary = None, [], False
    for line in _API.read_text().splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::")[1].strip()
        elif line.startswith(".. autosummary::"):
            in_summary = True
        elif in_summary and line.startswith("   ") and not line.strip().startswith(":"):
            if line.strip():
                entries.append((module, line.strip()))
        elif line.strip() and not line.startswith(" "):
            in_summary = False
    return entries


def test_every_public_path_of_the_api_reference_imports(tmp_path):
    """Each autosummary entry of docs/api.rst imports from its module, and the paths
    scripts used before the layout of issue 45 still name the same objects."""
    entries = _api_reference()
    assert len(entries) > 60 and ("pauc.gbm", "GradientBoostingRanker") in entries
    assert ("pauc.objectives", "window_objective") in entries
    code = ("import importlib\n"
            f"for module, name in {entries!r}:\n"
            "    getattr(importlib.import_module(module), name)\n"
            "import pauc, pauc.boost, pauc.gbm, pauc.objectives, pauc.gbm.objectives, pauc.metrics\n"
            "from pauc import GradientBoostingRanker, AUCBoost, MartiRank\n"
            "from pauc.boost import AUCBoost as A, MartiRank as M, GradientBoostingRanker as G\n"
            "assert G is GradientBoostingRanker is pauc.gbm.GradientBoostingRanker\n"
            "assert A is AUCBoost and M is MartiRank\n"
            "assert pauc.objectives.window_objective is pauc.gbm.objectives.window_objective\n"
            "assert pauc.metrics.roc_auc_ci.__module__ == 'pauc.inference._intervals'\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
