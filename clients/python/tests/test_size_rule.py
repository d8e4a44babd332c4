"""The size rules (400 lines a file, 60 a function) hold for every Python file of the package, and
the rule (lint/size_rule.py, also a flake8 plugin) refuses what breaks them."""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PACKAGE / "lint"))

from size_rule import check  # noqa: E402


def test_every_file_of_the_package_keeps_the_size_rules() -> None:
    files = [p for d in ("legwork", "tests", "examples", "lint") for p in sorted((PACKAGE / d).rglob("*.py"))]
    assert len(files) > 20
    assert [problem for path in files for problem in check(path)] == []


def test_the_rule_refuses_a_long_function_and_a_long_file(tmp_path: Path) -> None:
    body = "    x = 1\n" * 59
    ok = tmp_path / "ok.py"
    ok.write_text(f"def fits() -> None:\n{body}")
    assert check(ok) == []
    long = tmp_path / "long.py"
    long.write_text(f"async def too_long() -> None:\n{body}    x = 2\n" + "\n" * 340)
    problems = check(long)
    assert [p.split(": ", 1)[1].split(" ")[0] for p in problems] == ["LWS001", "LWS002"], problems
    assert "too_long has 61 lines" in problems[1]
