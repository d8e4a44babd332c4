"""The type test: a user script that reads fields of results and events passes ``mypy --strict``,
and each misspelling (a result field, an event field, an event name, a reason, a method name) is
refused. One mypy run over the script and its misspelt copies."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
SCRIPT = PACKAGE / "tests" / "typecheck" / "user_script.py"

# (what is replaced, by what, the error mypy must give on that copy)
MISSPELLINGS = [
    ('rfq["expires_at"]', 'rfq["expire_at"]', r'TypedDict "RfqView" has no key "expire_at"'),
    ('n["rfq"]["fill"]["price"]', 'n["rfq"]["fill"]["prise"]', r'TypedDict "RfqFill" has no key "prise"'),
    ('n["protection"]["until"]', 'n["protection"]["untill"]', r'TypedDict "MakerProtectionTrip" has no key "untill"'),
    ('n["event"] == "created"', 'n["event"] == "create"', r"Non-overlapping equality check"),
    ('error.reason == "kill_switch"', 'error.reason == "killswitch"', r"Non-overlapping equality check"),
    ('client.call("rfq.maker.get_limits"', 'client.call("rfq.maker.getlimits"', r'Argument 1 to "call"'),
    ('config["quote_domain"]', 'config["domain"]', r'TypedDict "MarketConfig" has no key "domain"'),
]


def test_the_user_script_passes_and_every_misspelling_fails(tmp_path: Path) -> None:
    text = SCRIPT.read_text()
    files = [tmp_path / "user_script.py"]
    files[0].write_text(text)
    for i, (right, wrong, _) in enumerate(MISSPELLINGS):
        assert right in text, right
        files.append(tmp_path / f"misspelt_{i}.py")
        files[-1].write_text(text.replace(right, wrong))
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", "/dev/null", *map(str, files)],
        cwd=PACKAGE, capture_output=True, text=True, env={"MYPYPATH": str(PACKAGE), "PATH": "/usr/bin:/bin"},
    )
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert not [e for e in errors if e.startswith(str(files[0]))], run.stdout  # the script as written passes
    for i, (_, wrong, expected) in enumerate(MISSPELLINGS):
        mine = [e for e in errors if e.startswith(str(files[i + 1]) + ":")]
        assert len(mine) == 1 and re.search(expected, mine[0]), (wrong, mine or run.stdout)
