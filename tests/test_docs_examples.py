"""The worked example of docs/python-api.md runs as written (issue 13)."""

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(path: Path) -> list[str]:
    """The ```python blocks of a Markdown file, in order."""
    return FENCE.findall(path.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_python_api_page_runs(tmp_path):
    blocks = python_blocks(ROOT / "docs" / "python-api.md")
    assert len(blocks) >= 5
    namespace: dict = {"__name__": "docs_example"}
    here = os.getcwd()
    os.chdir(tmp_path)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            for number, block in enumerate(blocks, 1):
                exec(compile(block, f"docs/python-api.md block {number}", "exec"), namespace)  # noqa: S102
    finally:
        os.chdir(here)
    printed = out.getvalue()
    assert "TransactionDataset('orders', records=4" in printed
    assert "AuditReport(passed=False, failed=['PEM']" in printed
    assert (tmp_path / "audit.md").read_text().startswith("# Audit of release.json")
