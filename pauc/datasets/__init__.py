"""Data sets: the bundled a9a split, svmlight files, and the papers' generators."""

from ._svmlight import load_a9a, load_svmlight

__all__ = ["load_a9a", "load_svmlight"]
