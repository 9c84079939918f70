"""Where the benchmarks find their data and keep their caches, relative to this
clone: the shared data sets beside the repository (``../shared/data``, as the
tests read them) and a cache folder inside it that git ignores."""

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
DATA = REPOSITORY.parent / "shared" / "data"
CACHE = REPOSITORY / "bench" / ".cache"
PANEL_CACHE = CACHE / "panel"
