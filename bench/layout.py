"""The package's rooms (folders): modules, lines and import edges (issue 45's benchmark).

A room is the folder that holds a module (``pauc`` itself, ``pauc/gbm``,
``pauc/gbm/engines``, ...).  The modules and the import edges are the static scan
of ``tests/test_imports.py`` (every ``import`` / ``cimport``, counting the edge
to each package ``__init__`` an import runs), read from the clone given (this one
by default), so that two trees compare in one run::

    python bench/layout.py                       # this clone
    python bench/layout.py /path/to/other/clone  # e.g. a worktree of an older commit

Prints, per room, its modules (a ``.pyx`` and its ``.pxd`` are one module),
source lines, the edges between its own modules and the edges out of it; then
the biggest room's share of the modules and of the lines, and the root's
module count (issue 45: at most 16 besides ``__init__`` and ``__main__``).
"""

import importlib.util
import sys
from collections import Counter
from pathlib import Path


def scan(repository):
    """The scan of ``repository``'s ``tests/test_imports.py``: its module table and edges."""
    path = Path(repository).resolve() / "tests" / "test_imports.py"
    spec = importlib.util.spec_from_file_location(f"_layout_scan_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rooms(repository):
    s = scan(repository)
    room_of = {}
    lines = Counter()
    for path in s.SOURCES:
        name = s._module_of(path)
        room = path.parent.relative_to(s.PACKAGE.parent).as_posix()
        room_of[name] = room
        lines[room] += len(path.read_text().splitlines())
    modules = Counter(room_of.values())
    inside, out = Counter(), Counter()
    for source, targets in s._edges().items():
        for target in targets:
            (inside if room_of[source] == room_of[target] else out)[room_of[source]] += 1
    root = [m for m, r in room_of.items() if r == "pauc" and m != "pauc"]
    return modules, lines, inside, out, [m for m in root if not m.endswith("__main__")]


def main(repository=Path(__file__).resolve().parents[1]):
    modules, lines, inside, out, root = rooms(repository)
    print(f"{'room':<22} {'modules':>7} {'lines':>7} {'edges in':>8} {'edges out':>9}")
    for room in sorted(modules, key=lambda r: -modules[r]):
        print(f"{room:<22} {modules[room]:>7} {lines[room]:>7} {inside[room]:>8} {out[room]:>9}")
    total_m, total_l = sum(modules.values()), sum(lines.values())
    big = max(modules, key=modules.get)
    print(f"\n{len(modules)} rooms, {total_m} modules, {total_l} lines, "
          f"{sum(inside.values()) + sum(out.values())} edges")
    print(f"biggest room: {big}, {modules[big] / total_m:.1%} of the modules, "
          f"{lines[big] / total_l:.1%} of the lines")
    biggest_lines = max(lines, key=lines.get)
    print(f"most lines:   {biggest_lines}, {lines[biggest_lines] / total_l:.1%} of the lines")
    print(f"root modules besides __init__ and __main__: {len(root)}")


if __name__ == "__main__":
    main(*sys.argv[1:])
