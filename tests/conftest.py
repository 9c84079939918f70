import sys
from pathlib import Path

# Test-only helpers (brute-force references) live beside the tests; with
# --import-mode=importlib the tests folder is not on sys.path by itself.
sys.path.insert(0, str(Path(__file__).parent))
