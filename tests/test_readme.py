"""The README's main-job table and its ROC picture come from one run.

``pauc compare --plot FILE.png`` writes the AUC and pAUC of every method, as the
table prints them, into the PNG's ``Description`` text; a table re-run without
its picture (or the reverse) fails here.
"""

from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]


def _readme_table():
    """``{method: (AUC, pAUC)}`` of the README's main-job table, as printed."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```\nmethod ", 1)[1].split("```", 1)[0]
    lines = block.splitlines()[2:]                   # after the header and the dashes
    rows = [line.split() for line in lines[:lines.index("")]]
    return {row[0]: (row[2], row[3]) for row in rows}


def test_readme_table_and_picture_come_from_one_run():
    shown = Image.open(ROOT / "docs" / "_static" / "roc_a9a.png").text["Description"]
    picture = {method: (auc, pauc) for method, auc, pauc in
               (line.split() for line in shown.splitlines())}
    assert _readme_table() == picture
