"""The settings: every environment variable named once in daily.core.config.Config, the
documentation printed from it, and a bad value refused with its variable's name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from daily.core.config import LIMIT_DEFAULTS, Config, environment_table, load
from daily.core.errors import ConfigError
from daily.web.limits import BUDGETS, DEFAULTS, MESSAGES

ROOT = Path(__file__).resolve().parents[2]


def test_the_configuration_page_prints_the_environment() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert environment_table() in page, (
        "docs/configuration.md's table differs from daily.core.config.Config: print it "
        "with python -c 'from daily.core.config import environment_table as t; print(t())'"
    )


def test_every_variable_the_package_reads_is_documented() -> None:
    # os.environ / environ.get("X") anywhere under daily/: a variable read and not documented.
    read = set()
    for path in (ROOT / "daily").rglob("*.py"):
        read |= set(re.findall(r"""environ(?:\.get)?[\[(]\s*["']([A-Z][A-Z0-9_]+)["']""",
                               path.read_text()))  # fmt: skip
    wsgi = ("HTTP_", "REMOTE_", "SERVER_", "wsgi")  # a request's own environ, not the process's
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert sorted(n for n in read if f"`{n}`" not in page and not n.startswith(wsgi)) == []


def test_every_limit_has_its_variable_and_its_message() -> None:
    assert set(DEFAULTS) == set(LIMIT_DEFAULTS) == set(MESSAGES)
    assert set(BUDGETS) <= set(DEFAULTS)
    for budget in BUDGETS.values():
        assert budget.network is None or budget.network in DEFAULTS


def test_an_empty_variable_counts_as_unset() -> None:
    assert load({"DAILY_TZ": "", "DAILY_LIMIT_MOVES": " "}).rate_limits.moves == ("120 per minute")


@pytest.mark.parametrize(
    ("environ", "message"),
    [({"DAILY_ENV": "staging"}, "DAILY_ENV"), ({"DAILY_TZ": "Mars/Olympus"}, "time zone"),
     ({"DAILY_CODE_DAYS": "soon"}, "DAILY_CODE_DAYS"),
     ({"DAILY_ESTABLISHED_DAYS": "0"}, "DAILY_ESTABLISHED_DAYS"),
     ({"DAILY_NETWORKS": "ipv5/8"}, "DAILY_NETWORKS")],
    ids=["env", "zone", "code-days", "established", "networks"],
)  # fmt: skip
def test_a_bad_value_is_refused_with_its_name(environ: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load(environ)


def test_the_model_reads_only_what_it_names() -> None:
    found = Config.read({"DAILY_TZ": "Europe/Oslo", "HOME": "/root", "DAILY_X": "1"})
    assert str(found.timezone) == "Europe/Oslo" and not hasattr(found, "HOME")
