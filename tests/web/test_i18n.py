"""The site in thirteen languages: complete catalogues, every page translated, the choice kept.

Pages render through the Flask test client (not the browser), so every page in every
language costs a few seconds at most.
"""

from __future__ import annotations

import gettext as gettext_module
import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import flask_babel
import pytest
from babel.dates import format_date
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from babel.support import Translations

from daily.web import i18n
from tests.web.helpers import LIMITS_OFF, leaks, play_daily

# One Redis flavour is enough for the pages: they read the same store either way.
EMBEDDED = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "daily" / "translations"
LANGUAGES = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]
#: Every page in every language takes 1.5 s a language: the quick loop renders them in German
#: (the longest words) and Japanese (another script), the full run in all twelve.
SAMPLED = [code if code in ("de", "ja") else pytest.param(code, marks=pytest.mark.slow)
           for code in LANGUAGES]  # fmt: skip
DECEMBER = datetime(2026, 12, 5, 10, 0, tzinfo=UTC)
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")


# -- the catalogues -------------------------------------------------------------------------


def _source_messages() -> dict[str | tuple[str, ...], None]:
    """Every message the code and templates hold now (as babel.cfg and docs/web.md extract)."""
    method_map = [("daily/**.py", "python"), ("templates/**.html", "jinja2")]
    keywords = {"_": None, "gettext": None, "lazy_gettext": None, "ngettext": (1, 2)}
    found: dict[str | tuple[str, ...], None] = {}
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map, keywords=keywords
    ):
        found[message] = None
    return found


@pytest.fixture(scope="module")
def source_messages() -> dict[str | tuple[str, ...], None]:
    return _source_messages()


def _catalog(code: str) -> Catalog:
    with (TRANSLATIONS / code / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=code)


def test_every_language_has_a_catalogue() -> None:
    shipped = {p.name for p in TRANSLATIONS.iterdir() if p.is_dir()}
    assert shipped == set(LANGUAGES)
    assert len(i18n.LANGUAGES) == 13


def _problems(catalog: Catalog, messages: Iterable[str | tuple[str, ...]]) -> list[str]:
    """What keeps *catalog* from translating every one of *messages* as written."""
    problems = []
    for message_id in messages:
        entry = catalog.get(message_id)
        strings = () if entry is None else entry.string
        assert strings is not None, message_id  # babel types a translation as optional
        strings = (strings,) if isinstance(strings, str) else tuple(strings)
        if entry is None or not strings or not all(strings):
            problems.append(f"missing: {message_id!r}")
        elif entry.fuzzy:
            problems.append(f"fuzzy: {message_id!r}")
        else:
            source = message_id if isinstance(message_id, str) else message_id[-1]
            wanted = set(PLACEHOLDER.findall(source))
            for text in strings:
                if set(PLACEHOLDER.findall(text)) != wanted:
                    problems.append(f"placeholders differ: {message_id!r} -> {text!r}")
    return problems + [f"{m.id!r}: {e}" for m, errors in catalog.check() for e in errors]


@pytest.mark.parametrize("code", LANGUAGES)
def test_catalogue_translates_every_message(
    code: str, source_messages: dict[str | tuple[str, ...], None]
) -> None:
    problems = _problems(_catalog(code), source_messages)
    assert not problems, f"{code}: {len(problems)} problems, first: {problems[:5]}"


def test_the_check_finds_missing_fuzzy_and_broken_entries() -> None:
    catalog = Catalog(locale="da")
    catalog.add("Ones", "Enere", flags=["fuzzy"])
    catalog.add("Twos", "")
    catalog.add("Die %(n)s: %(face)s", "Terning %(n)s")
    catalog.add("Fours", "Firere")
    messages = ["Ones", "Twos", "Threes", "Die %(n)s: %(face)s", "Fours"]
    assert [p.split(":")[0] for p in _problems(catalog, messages)] == [
        "fuzzy", "missing", "missing", "placeholders differ",
    ]  # fmt: skip


def test_compiled_catalogues_are_installed() -> None:
    # The install compiles them (setup.py); the site never compiles at run time.
    for code in LANGUAGES:
        mo = TRANSLATIONS / code / "LC_MESSAGES" / "messages.mo"
        assert mo.is_file(), f"{mo} is missing: reinstall (pip install -e .) to compile it"
        assert mo.stat().st_mtime >= (mo.with_suffix(".po")).stat().st_mtime, f"{mo} is stale"


# -- every page in every language -----------------------------------------------------------


class _Marking(gettext_module.NullTranslations):
    """The real catalogue, with every message it translates marked ‹…›; the rest untouched."""

    def __init__(self, inner: Translations) -> None:
        super().__init__()
        self.inner = inner

    def gettext(self, message: str) -> str:
        if message in self.inner._catalog:
            return f"‹{self.inner.gettext(message)}›"
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        if (singular, 0) in self.inner._catalog:
            return f"‹{self.inner.ngettext(singular, plural, n)}›"
        return singular if n == 1 else plural

    def pgettext(self, context: str, message: str) -> str:
        return self.gettext(message)

    ugettext = gettext
    ungettext = ngettext


@pytest.mark.redis
@EMBEDDED
@pytest.mark.parametrize("code", SAMPLED)
def test_every_page_renders_translated(
    code: str, make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every page of the site in a row, at a script's pace: more than a player's page budget.
    client = make_app(now=DECEMBER, rate_limits=LIMITS_OFF).test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = f"{code};q=0.9, en;q=0.1"
    state = play_daily(client)
    client.patch("/api/v1/players/me", json={"name": "4711"})  # a name is data, not a message
    party = client.post(
        "/api/v1/games", json={"mode": "party", "players": ["11", "22"], "ruleset": "yahtzee"}
    ).get_json()
    real = flask_babel.Domain.get_translations
    monkeypatch.setattr(flask_babel.Domain, "get_translations", lambda self: _Marking(real(self)))
    day = DECEMBER.date().isoformat()
    paths = [
        "/", f"/play/{state['id']}", f"/f/{state['share_code']}", "/advent", "/solo",
        "/party", f"/party/{party['id']}", "/play/missing", "/leaderboards",
        f"/leaderboards/daily/{day}", "/leaderboards/best-day", "/leaderboards/streak",
        "/leaderboards/advent/2026", f"/leaderboards/friend/{state['share_code']}",
        *(f"/rules/{ruleset}" for ruleset in ("maxi", "yatzy", "yacht", "yahtzee")),
    ]  # fmt: skip
    # Not messages: dates Babel writes from the locale's data, a sample code, the codes shown.
    data = (
        format_date(DECEMBER.date(), "full", locale=code),
        format_date(DECEMBER.date(), "long", locale=code),
        "K7P2-QX9D",
        state["share_code"],
    )
    for path in paths:
        response = client.get(path)
        assert response.status_code in (200, 404), path
        text = response.get_data(as_text=True)
        assert f'<html lang="{code}">' in text, path
        found = leaks(text, data)
        assert not found, f"{code} {path}: untranslated {sorted(found)}"
        for block in re.findall(r'id="(?:party-)?strings">(.*?)</script>', text):
            values = json.loads(block).values()
            assert all(v.startswith("‹") and v.endswith("›") for v in values), f"{code} {path}"


# -- row names as each country's players know them --------------------------------------------

YATZY_ROWS = {
    "da": ["Enere", "Toere", "Treere", "Firere", "Femmere", "Seksere", "Et par", "To par",
           "Tre ens", "Fire ens", "Lille straight", "Stor straight", "Fuldt hus", "Chance",
           "Yatzy"],
    "sv": ["Ettor", "Tvåor", "Treor", "Fyror", "Femmor", "Sexor", "Par", "Två par", "Tretal",
           "Fyrtal", "Liten stege", "Stor stege", "Kåk", "Chans", "Yatzy"],
    "es": ["Unos", "Doses", "Treses", "Cuatros", "Cincos", "Seises", "Una pareja",
           "Dos parejas", "Trío", "Póker", "Escalera corta", "Escalera larga", "Full", "Suerte",
           "Yatzy"],
    "pt": ["Uns", "Dois", "Três", "Quatros", "Cincos", "Seis", "Um par", "Dois pares", "Trinca",
           "Quadra", "Sequência baixa", "Sequência alta", "Full house", "Chance", "Yatzy"],
}  # fmt: skip


@pytest.mark.redis
@EMBEDDED
@pytest.mark.parametrize("code", list(YATZY_ROWS))
def test_row_names_are_the_countrys_own(code: str, make_app: Any) -> None:
    client = make_app().test_client()
    text = client.get("/rules/yatzy", headers={"Accept-Language": code}).get_data(as_text=True)
    names = re.findall(r'data-row="\w+">\s*<th scope="row">([^<]+)</th>', text)
    assert names == YATZY_ROWS[code]


# -- choosing the language ------------------------------------------------------------------


def _lang(response: Any) -> str:
    found = re.search(r'<html lang="([\w-]+)">', response.get_data(as_text=True))
    assert found
    return found[1]


@pytest.mark.redis
@EMBEDDED
@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("sv-SE,sv;q=0.9,en;q=0.5", "sv"),
        ("de-AT", "de"),
        ("pt-BR,pt;q=0.8", "pt"),
        ("no;q=0.9, en;q=0.2", "nb"),
        ("nn", "nb"),
        ("ja-JP", "ja"),
        ("xx, tlh", "en"),
        ("", "en"),
    ],
)
def test_language_follows_accept_language(make_app: Any, header: str, expected: str) -> None:
    client = make_app().test_client()
    assert _lang(client.get("/rules/maxi", headers={"Accept-Language": header})) == expected


@pytest.mark.redis
@EMBEDDED
def test_the_switcher_remembers_the_choice(make_app: Any) -> None:
    client = make_app().test_client()
    german = {"Accept-Language": "de"}
    page = client.get("/me", headers=german).get_data(as_text=True)
    assert '<option value="de" lang="de" translate="no" selected>' in page
    assert "Full House" in client.get("/rules/yatzy", headers=german).get_data(as_text=True)
    response = client.post("/prefs/language", data={"language": "da", "next": "/rules/yatzy"})
    assert response.status_code == 303 and response.headers["Location"] == "/rules/yatzy"
    page = client.get("/rules/yatzy", headers=german)
    assert _lang(page) == "da" and "Fuldt hus" in page.get_data(as_text=True)
    # Bad choices are refused and change nothing; only local paths are followed.
    assert client.post("/prefs/language", data={"language": "tlh"}).status_code == 400
    assert _lang(client.get("/", headers=german)) == "da"
    response = client.post("/prefs/language", data={"language": "en", "next": "//evil.test/"})
    assert response.headers["Location"] == "/"
    assert _lang(client.get("/", headers=german)) == "en"


@pytest.mark.redis
@EMBEDDED
def test_error_pages_speak_the_players_language(make_app: Any) -> None:
    client = make_app().test_client()
    page = client.get("/play/missing", headers={"Accept-Language": "fr"})
    text = page.get_data(as_text=True)
    assert page.status_code == 404 and "Il n'y a rien ici" in text.replace("&#39;", "'")
    # The code's English message stays below, marked as such.
    assert '<p class="muted" lang="en" translate="no">no such game' in text


# -- dates and numbers per locale ------------------------------------------------------------


@pytest.mark.redis
@EMBEDDED
@pytest.mark.parametrize(
    ("code", "date_text"),
    [
        ("en", "Saturday, December 5, 2026"),
        ("de", "Samstag, 5. Dezember 2026"),
        ("fr", "samedi 5 décembre 2026"),
        ("fi", "lauantai 5. joulukuuta 2026"),
        ("ja", "2026年12月5日土曜日"),
    ],
)
def test_dates_follow_the_locale(make_app: Any, code: str, date_text: str) -> None:
    client = make_app(now=DECEMBER).test_client()
    text = client.get("/", headers={"Accept-Language": code}).get_data(as_text=True)
    assert date_text in text


@pytest.mark.redis
@EMBEDDED
@pytest.mark.parametrize(
    ("code", "number_text"),
    [("en", "7,204"), ("de", "7.204"), ("fr", "7\u202f204"), ("sv", "7\u00a0204"), ("ja", "7,204")],
)
def test_numbers_follow_the_locale(make_app: Any, code: str, number_text: str) -> None:
    app = make_app()
    with app.test_request_context("/", headers={"Accept-Language": code}):
        rendered = app.jinja_env.from_string("{{ 7204 | number }}").render()
    assert rendered == number_text
