"""The size rules of the repository (ESLint's ``max-lines`` 400 and ``max-lines-per-function`` 60,
blank lines and comments counted) for the Python package, as a flake8 plugin (``.flake8`` loads it
as a local plugin, so ``flake8`` in the lint step applies it):

- LWS001: a file over 400 lines;
- LWS002: a function or method over 60 lines, from its ``def`` to its last line.

Generated files (``legwork/wire.py``, written by ``npm run protocol:python``) are exempt, as the
generated TypeScript is. ``python3 lint/size_rule.py FILE...`` runs it without flake8.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Iterator

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60
GENERATED = ("legwork/wire.py",)

Problem = tuple[int, int, str, type]


class SizeRule:
    name = "legwork-size-rule"
    version = "1.0.0"

    def __init__(self, tree: ast.AST, lines: list[str], filename: str = "") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    def run(self) -> Iterator[Problem]:
        if Path(self.filename).as_posix().endswith(GENERATED):
            return
        if len(self.lines) > MAX_FILE_LINES:
            yield (MAX_FILE_LINES + 1, 0, f"LWS001 file has {len(self.lines)} lines, at most {MAX_FILE_LINES}: split it", type(self))
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    yield (node.lineno, node.col_offset, f"LWS002 function {node.name} has {size} lines, at most {MAX_FUNCTION_LINES}: split it", type(self))


def check(path: Path) -> list[str]:
    text = path.read_text()
    rule = SizeRule(ast.parse(text, str(path)), text.splitlines(keepends=True), str(path))
    return [f"{path}:{line}:{col + 1}: {message}" for line, col, message, _ in rule.run()]


if __name__ == "__main__":
    found = [problem for name in sys.argv[1:] for problem in check(Path(name))]
    print("\n".join(found) if found else "", end="\n" if found else "")
    sys.exit(1 if found else 0)
