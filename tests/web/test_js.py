"""The play script's modules (``daily/static/js``): how pages load them, node's own test runner
on their pure parts, the fixture those tests read pinned to what the server sends, and the size
of every function.

The node tests need ``node`` (``.ci/run`` installs it); they skip, saying so, where it is absent.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from daily import __version__
from daily.core.modes import Mode, find_mode
from daily.core.rules import find_ruleset
from daily.web import assets, pages, sheets

ROOT = Path(__file__).resolve().parents[2]
MODULES = ROOT / "daily" / "static" / "js"
NODE_TESTS = ROOT / "tests" / "js"
LONGEST = 80  # lines a function may take, its signature and closing brace included
# One Redis flavour is enough: nothing here depends on the store.
EMBEDDED = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)
# The exact solver's expected final score from the start (``Table.optimum``), to check par.js.
OPTIMUM = {"maxi": 394.56, "yatzy": 248.44, "yacht": 191.77}
PRELOAD = re.compile(r'<link rel="modulepreload" href="([^"]+)">')
ENTRY = re.compile(r'<script type="module" src="([^"]+)"></script>')


# -- how pages load them ---------------------------------------------------------------------


@pytest.mark.redis
@EMBEDDED
def test_a_page_loads_the_entry_and_preloads_what_it_imports(make_app: Any) -> None:
    html = make_app().test_client().get("/solo").get_data(as_text=True)
    assert ENTRY.findall(html) == [f"/js/{__version__}/main.js"]
    preloaded = [url.rsplit("/", 1)[1] for url in PRELOAD.findall(html)]
    # Every static import followed from the entry; the modules only some pages run are
    # imported dynamically, and the game screen does not fetch them.
    found = _static_closure(["main.js"]) - {"main.js"}
    assert sorted(preloaded) == sorted(found) and len(preloaded) == len(set(preloaded))
    # The rest is fetched only where it runs: each module the page does not preload is a
    # dynamic import (the results once a game ends, the party, the other pages) or one of
    # their own static imports, or a Web Worker (a new player's proof of work) started by URL.
    lazy = {path.name for path in MODULES.glob("*.js")} - found - {"main.js"}
    scripts = "".join(path.read_text(encoding="utf-8") for path in MODULES.glob("*.js"))
    dynamic = set(re.findall(r"import\('\./([\w-]+\.js)'\)", scripts))
    workers = set(re.findall(r"new URL\('\./([\w-]+\.js)', import\.meta\.url\)", scripts))
    assert {"pages.js", "party.js", "results.js"} <= dynamic <= lazy
    assert workers == {"proof-worker.js"} <= lazy
    assert lazy == _static_closure(sorted(dynamic | workers)) - found


def _static_closure(roots: list[str]) -> set[str]:
    """The modules *roots* import statically, followed to the end (the roots included)."""
    found, todo = set(roots), list(roots)
    while todo:
        source = (MODULES / todo.pop()).read_text(encoding="utf-8")
        for name in re.findall(r"^import .* from '\./([\w-]+\.js)';$", source, re.M):
            if name not in found:
                found.add(name)
                todo.append(name)
    return found


@pytest.mark.redis
@EMBEDDED
def test_the_modules_are_javascript_cached_by_version(make_app: Any) -> None:
    testing = make_app().test_client()
    for name in assets.module_names():
        with testing.get(f"/js/{__version__}/{name}") as response:
            assert response.status_code == 200, name
            assert response.mimetype == "text/javascript"
            assert response.headers["Cache-Control"] == "no-cache"  # edits show on reload
    for name in ("package.json", "app.js"):
        with testing.get(f"/js/{__version__}/{name}") as response:
            assert response.status_code == 404
    production = make_app(env="production", secret_key="p" * 40).test_client()
    with production.get(f"/js/{__version__}/play.js") as current:
        assert current.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert "script-src 'self'" in current.headers["Content-Security-Policy"]
    with production.get("/js/0.0.1/play.js") as older:  # a page from before a deploy still plays
        assert older.status_code == 200 and "immutable" not in older.headers["Cache-Control"]


@pytest.mark.redis
@EMBEDDED
def test_the_service_worker_keeps_every_module_for_offline_use(make_app: Any) -> None:
    worker = make_app().test_client().get("/sw.js").get_data(as_text=True)
    kept = set(re.findall(r"'(/js/[^']+)'", worker))
    assert kept == {f"/js/{__version__}/{path.name}" for path in MODULES.glob("*.js")}
    assert "__MODULES__" not in worker


# -- node tests ------------------------------------------------------------------------------


def test_the_modules_pass_their_node_tests() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (.ci/run installs nodejs): the JS unit tests need it")
    files = sorted(str(path) for path in NODE_TESTS.glob("*.test.mjs"))
    assert files, "no node tests found"
    run = subprocess.run([node, "--test", *files], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


@pytest.mark.redis
@EMBEDDED
def test_the_node_tests_fixture_is_what_the_server_sends(make_app: Any) -> None:
    fixture = json.loads((NODE_TESTS / "fixture.json").read_text(encoding="utf-8"))
    with make_app().test_request_context("/"):
        strings = pages.js_strings()
        for ruleset_id, sheet in fixture["sheets"].items():
            assert sheets.sheet_meta(find_ruleset(ruleset_id)) == sheet, ruleset_id
    assert {key: strings[key] for key in fixture["strings"]} == fixture["strings"]


def test_par_js_grades_every_row_of_each_ruleset_it_knows() -> None:
    # tools/make_par.py writes it; a ruleset whose rows changed must be estimated again.
    text = (MODULES / "par.js").read_text(encoding="utf-8")
    par = json.loads(text[text.index("{") : text.rindex("}") + 1])
    assert {"maxi", "yatzy"} <= set(par)
    for ruleset_id, figures in par.items():
        ruleset = find_ruleset(ruleset_id)
        assert list(figures["rows"]) == [row.id for row in ruleset.rows], ruleset_id
        assert figures["games"] >= 1000
        # The estimate adds up to the solver's optimum within its noise (a few points);
        # Yahtzee's extra five-of-a-kind bonuses are not a row, so it is left out.
        total = sum(figures["rows"].values()) + figures["bonus"]
        if ruleset_id in OPTIMUM:
            assert abs(total - OPTIMUM[ruleset_id]) < 5, (ruleset_id, total)


# -- modes by their flags ---------------------------------------------------------------------

# A comparison with a mode's id: `record.mode == "daily"`, `state.mode === 'computer'`,
# `mode.id in ("solo", "computer")`. Reading a flag (`mode.board == "daily"`) is the way.
MODE_ID = re.compile(r"\bmode(?:\.id)?\s*(?:==|!=|not\s+in\b|in\b)")
SCRIPTS_AND_TEMPLATES = sorted([*MODULES.glob("*.js"), *(ROOT / "templates").glob("*.html")])


def test_the_mode_id_check_sees_comparisons() -> None:
    for comparison in ['record.mode == "daily"', "state.mode === 'friend'", "mode.id in (a, b)"]:
        assert MODE_ID.search(comparison), comparison
    for reading in ['mode.board == "daily"', "mode.is_computer", "{ mode: 'party' }", "data-mode"]:
        assert not MODE_ID.search(reading), reading


@pytest.mark.parametrize("path", SCRIPTS_AND_TEMPLATES, ids=lambda path: path.name)
def test_templates_and_the_script_read_a_modes_flags_never_its_id(path: Path) -> None:
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if MODE_ID.search(line)
    ]
    assert found == []


# A flag read of a mode: `mode.board`, `game.mode.hints`, `{% if mode.shares %}`.
MODE_FLAG = re.compile(r"\bmode\.([A-Za-z_]\w*)")


def test_every_mode_flag_read_is_one_a_mode_has() -> None:
    # Jinja reads a missing attribute as nothing, and the script reads mode_meta's JSON: a flag
    # that a mode no longer has would hide what it guards without an error anywhere.
    flags = {name for name in dir(Mode) if not name.startswith("_")} - {"id"}
    assert set(sheets.mode_meta(find_mode("daily"))) <= flags  # what the script is sent
    found = {
        f"{path.name}: mode.{flag}"
        for path in SCRIPTS_AND_TEMPLATES
        for flag in MODE_FLAG.findall(path.read_text(encoding="utf-8"))
        if flag not in flags
    }
    assert found == set()
    assert MODE_FLAG.findall("{% if mode.analysis %}") == ["analysis"]  # the check sees one


# -- function length -------------------------------------------------------------------------

# Strings, template literals, comments and regex literals, whose braces are not code.
_SKIP = re.compile(
    r"""//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`"""
    r"""|(?<=[(,=:\[!&|?{};])\s*/(?![/*])(?:\\.|\[(?:\\.|[^\]\\])*\]|[^/\\\n\[])+/[a-z]*""",
    re.S,
)
# What stands before a function body's "{": an arrow, or a parameter list after "function f".
_OPENS_FUNCTION = re.compile(
    r"(=>\s*|\bfunction\b\s*\*?\s*[\w$]*\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*)$"
)


def _blank(match: re.Match[str]) -> str:
    # Keeps the line count: every character but a newline becomes a space.
    return re.sub(r"[^\n]", " ", match.group())


def function_lengths(source: str) -> list[tuple[int, int]]:
    """(first line, lines) of every function body in *source*, nested ones too."""
    code = _SKIP.sub(_blank, source)
    found, opened = [], []
    for i, char in enumerate(code):
        if char == "{":
            is_function = bool(_OPENS_FUNCTION.search(code[max(0, i - 300) : i]))
            opened.append((i, is_function))
        elif char == "}" and opened:
            start, is_function = opened.pop()
            if is_function:
                first = code.count("\n", 0, start) + 1
                found.append((first, code.count("\n", start, i) + 1))
    return found


def test_the_length_check_sees_functions_and_nothing_else() -> None:
    source = (
        "const re = /\\{(\\w+)\\}/g; // a { in a comment\n"
        "export async function a(x, { y } = {}) {\n  if (x) {\n    return `${'{'}`;\n  }\n}\n"
        "const b = (v) => {\n  return v;\n};\nconst o = { c: 1 };\n"
    )
    assert function_lengths(source) == [(2, 5), (7, 3)]


# par.js is data (tools/make_par.py writes it): no function to measure.
CODE_MODULES = sorted(path for path in MODULES.glob("*.js") if path.name != "par.js")


@pytest.mark.parametrize("path", CODE_MODULES, ids=lambda path: path.name)
def test_no_function_is_over_80_lines(path: Path) -> None:
    lengths = function_lengths(path.read_text(encoding="utf-8"))
    assert lengths, f"no function found in {path.name}: the check is blind"
    first, lines = max(lengths, key=lambda found: found[1])
    assert lines <= LONGEST, f"{path.name}:{first}: a function of {lines} lines"


IMPORTED = re.compile(r"import\s*\{([^}]*)\}\s*from\s*'\./([\w-]+\.js)'", re.S)
EXPORTED = re.compile(
    r"export\s+(?:async\s+)?(?:function\*?|const|let|var|class)\s+([\w$]+)|export\s*\{([^}]*)\}"
)


def exports_of(source: str) -> set[str]:
    """The names a module's source exports (declared, or listed in ``export { a, b as c }``).

    >>> sorted(exports_of("export const a = 1; export async function b() {} export { c, d as e };"))
    ['a', 'b', 'c', 'e']
    """
    names = set()
    for declared, listed in EXPORTED.findall(source):
        names |= (
            {declared} if declared else {n.split(" as ")[-1].strip() for n in listed.split(",")}
        )
    return names - {""}


def missing_imports(modules: dict[str, str]) -> list[str]:
    """Each ``import { name } from './x.js'`` in *modules* (file name -> source) that x.js does
    not export: the browser refuses the whole module graph for one such name."""
    missing = []
    for name, source in sorted(modules.items()):
        for listed, target in IMPORTED.findall(source):
            wanted = {n.split(" as ")[0].strip() for n in listed.split(",")} - {""}
            have = exports_of(modules.get(target, ""))
            missing += [f"{name}: {w} from {target}" for w in sorted(wanted - have)]
    return missing


def test_every_name_a_script_imports_is_exported_there() -> None:
    modules = {path.name: path.read_text(encoding="utf-8") for path in MODULES.glob("*.js")}
    assert missing_imports(modules) == []
    # The check sees a name that moved: figures.js once imported `signed` from results.js
    # after it had moved to share.js, and the party's figures never showed.
    moved = {**modules, "figures.js": "import { signed } from './results.js';"}
    assert missing_imports(moved) == ["figures.js: signed from results.js"]
