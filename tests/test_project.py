"""The project's own promises: README set-up commands, CI, lint and types."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from daily.core.version import VERSION

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```sh\n(.+?)\n```", text, flags=re.S)[:2]


def test_readme_starts_with_the_two_setup_commands() -> None:
    serve, test = _readme_commands()
    assert serve.endswith("daily serve")
    assert "pytest" in test
    assert (ROOT / "README.md").read_text().index(serve) < 400


def test_the_version_is_pyprojects() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert VERSION == declared


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


#: The longest function the package may hold (the play script's limit too: tests/web/test_js.py).
LONGEST = 80


def function_lengths(source: str) -> list[tuple[int, str]]:
    """(lines, name) of every function and method in *source*, nested ones too."""
    return [
        (node.end_lineno - node.lineno + 1, node.name)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno
    ]


def test_the_length_check_sees_every_function() -> None:
    source = (
        "def a():\n    def b():\n        pass\n    return b\n\n"
        "class C:\n    def m(self):\n        ...\n"
    )
    assert sorted(function_lengths(source)) == [(2, "b"), (2, "m"), (4, "a")]


def test_no_function_is_over_80_lines() -> None:
    found = [
        (lines, f"{path.relative_to(ROOT)}: {name}")
        for path in sorted((ROOT / "daily").rglob("*.py"))
        for lines, name in function_lengths(path.read_text())
    ]
    lines, where = max(found)
    assert lines <= LONGEST, f"{where}: a function of {lines} lines"
