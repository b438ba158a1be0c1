"""The service's environment variables: one typed field each, with its default and its
meaning (:class:`Environment`), read by :func:`daily.core.config.load` and printed as the
table of docs/configuration.md (:func:`environment_table`)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from daily.core.errors import ConfigError
from daily.core.parsed import (
    Days,
    Networks,
    Origins,
    Proxies,
    SecretKeys,
    Specs,
    Timestamp,
    WholeDays,
    Zone,
)

#: The rate limits (daily.web.limits) and the variables that set them, e.g. ``30 per hour``:
#: every field of :class:`Environment` named ``DAILY_LIMIT_*``.
LIMIT_PREFIX = "DAILY_LIMIT_"
#: The browsers' push services (Chrome and Edge, Firefox, Safari, Windows): ``DAILY_PUSH_SERVICES``.
PUSH_SERVICES = ("https://fcm.googleapis.com, https://updates.push.services.mozilla.com, "
                 "https://*.push.apple.com, https://*.notify.windows.com")  # fmt: skip
#: The strategy tables the service builds by itself, in order: ``DAILY_TABLES``.
DEFAULT_TABLES = ("maxi", "yatzy", "yahtzee", "yacht")
#: The variables whose empty value means "none", not "unset": ``DAILY_TABLES=`` builds none.
EMPTY_MEANS_NONE = frozenset({"DAILY_TABLES"})
#: The secret used when none is set, outside production only.
DEV_SECRET = "dev-secret-not-for-production"

#: The variables the model reads: ``os.environ``, or the mapping :meth:`Environment.read` is
#: handed (a test's, a subprocess's).
_ENVIRON: ContextVar[Mapping[str, str]] = ContextVar("environ", default=os.environ)


def written(text: str) -> Any:
    """A field's default as its variable would be written (``"7"``, ``"ipv4/24"``): the
    model parses it as it parses the environment, and the docs print it as it is."""
    return text


def home_cache() -> Path:
    """The strategy tables' folder when ``DAILY_CACHE`` is unset: ``~/.cache/daily``."""
    return Path.home() / ".cache" / "daily"


class _Variables(EnvSettingsSource):
    """The environment pydantic-settings reads: :data:`_ENVIRON`'s, where a blank value
    counts as unset (except where empty means none, :data:`EMPTY_MEANS_NONE`)."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        environ = _ENVIRON.get()
        return {k: v for k, v in environ.items() if v.strip() or k in EMPTY_MEANS_NONE}


class Environment(BaseSettings):
    """The service's environment variables, one typed field each with its default (as the
    variable would be written) and its meaning: what :func:`load` reads, and the table
    docs/configuration.md prints (:func:`environment_table`). Each type parses its text
    (:mod:`daily.core.parsed`); a bad value is refused with the variable's name."""

    model_config = SettingsConfigDict(
        frozen=True,
        extra="ignore",
        str_strip_whitespace=True,
        case_sensitive=True,
        validate_default=True,
        enable_decoding=False,  # a list is text separated by commas, not JSON
    )

    SECRET_KEY: SecretKeys = Field(written(""), description=(
        "Keys, newest first, separated by commas (`new,old`). The newest signs session cookies "
        "and player tokens and any of them is accepted, so a key can be rotated by prepending "
        "a new one. The last (oldest) key derives the daily and friend seeds and must never "
        "change: every dealt day would get other dice, so production records its fingerprint "
        "in Redis and refuses to serve under another. Production needs every key to have 32+ "
        "characters. Unset: a development secret."))  # fmt: skip
    DAILY_ENV: Literal["production", "development", "testing"] = Field("development", description=(
        "`production`, `development` or `testing`. Production sends secure cookies and "
        "refuses `DAILY_NOW` and a missing secret."))  # fmt: skip
    REDIS_URL: str | None = Field(
        None,
        description=(
            "The Redis server (`redis://host:6379/0`, `rediss://`, `unix://`) or a Redis Cluster "
            "(`redis+cluster://host:port`, one node is enough). Unset: the embedded Redis."
        ),
    )
    DAILY_DATA: Path = Field(
        written("data"),
        description=("Folder of the embedded Redis's database (when `REDIS_URL` is unset)."),
    )
    DAILY_TZ: Zone = Field(
        written("UTC"),
        description=(
            "The reference time zone (IANA name, e.g. `Europe/Copenhagen`): when a day starts "
            "and closes."
        ),
    )
    DAILY_NOW: Timestamp | None = Field(
        None,
        description=(
            "An ISO timestamp (`2026-12-24T09:00:00`, UTC unless it says) that freezes the "
            "clock, for demos and tests; refused in production."
        ),
    )
    DAILY_BOARD_RETENTION_DAYS: WholeDays = Field(
        written("400"), description=("How long a date's leaderboard is kept after the date.")
    )
    DAILY_CODE_DAYS: Days = Field(
        written("7"),
        description=(
            "How long a friend code is ranked (a daily's code: at most until its day closes)."
        ),
    )
    DAILY_IDLE_DAYS: Days = Field(
        written("30"),
        description=("How long an unfinished solo, party or computer game is kept when idle."),
    )
    DAILY_ARCHIVE: str | None = Field(
        None,
        description=(
            "Where finished games go when they leave Redis: a local folder, or an fsspec URL "
            "that every web host shares (`s3://bucket/daily` with `s3fs` installed and its usual "
            "`AWS_*` settings; any S3-compatible store). Unset: `DAILY_DATA/archive`."
        ),
    )
    DAILY_ARCHIVE_DAYS: WholeDays = Field(
        written("30"),
        description=(
            "How many days a finished game stays in Redis before `daily archive` (and the "
            "service's sweep) moves it to the archive."
        ),
    )
    DAILY_ESTABLISHED_DAYS: WholeDays = Field(
        written("3"),
        description=(
            "On how many different days a player must have finished a ranked daily before their "
            "dailies rank on the world boards (day, best day, streak, advent); until then they "
            "rank on friend codes' boards and leagues. 1: at once."
        ),
    )
    DAILY_TRUSTED_PROXIES: Proxies = Field(
        written(""),
        description=(
            "The reverse proxies in front, by address or CIDR, comma-separated (`10.0.0.2, "
            "10.1.0.0/16`): only their requests may set `X-Forwarded-For` and "
            "`X-Forwarded-Proto` (the client address the limits count). A number (the old count "
            "of proxies) is refused."
        ),
    )
    DAILY_NETWORKS: Networks = Field(
        written("ipv4/24, ipv6/56, ipv6/48"),
        description=(
            "The networks a client address belongs to that count new players, ranked dailies "
            "and league joins together (`DAILY_LIMIT_NETWORK_*`)."
        ),
    )
    DAILY_METRICS_TOKEN: str | None = Field(
        None,
        description=(
            "The bearer token that opens `/metrics` (Prometheus); unset, `/metrics` is a 404."
        ),
    )
    DAILY_CACHE: Path = Field(default_factory=home_cache, description=(
        "Folder of the strategy tables on this host (shared by every process that serves from "
        "it; also the build queue and the builder's lock)."))  # fmt: skip
    DAILY_TABLES: Specs = Field(written(",".join(DEFAULT_TABLES)), description=(
        "The strategy tables the service builds by itself, in order, as "
        "`ruleset[:name=value,...]`; empty: none."))  # fmt: skip
    DAILY_TABLES_URL: str | None = Field(None, description=(
        "The store several hosts share their strategy tables through: a folder every host "
        "mounts, or an fsspec URL (`s3://bucket/tables` with `s3fs` installed and its usual "
        "`AWS_*` settings; any S3-compatible store). A table is built once (by the release "
        "step or the first host that needs it) and uploaded; every other host fetches it into "
        "`DAILY_CACHE` and never builds it. Unset: each host builds its own. See "
        "[strategy.md](strategy.md#several-hosts-one-table) and "
        "[operations.md](operations.md#strategy-tables-on-several-hosts)."))  # fmt: skip
    DAILY_LIMIT_PLAYERS: str = Field(
        "30 per hour", description="New players per client address, browser guests too."
    )
    DAILY_LIMIT_NETWORK_PLAYERS: str = Field(
        "120 per hour", description=("New players per network (`DAILY_NETWORKS`).")
    )
    DAILY_LIMIT_DAILIES: str = Field(
        "50 per day",
        description=("Ranked dailies started per client address, in the puzzle day's window."),
    )
    DAILY_LIMIT_NETWORK_DAILIES: str = Field(
        "150 per day",
        description=("Ranked dailies started per network, in the puzzle day's window."),
    )
    DAILY_LIMIT_GAMES: str = Field(
        "120 per hour",
        description=(
            "Other games started (solo, computer, party, practice, friend) per player and per "
            "address."
        ),
    )
    DAILY_LIMIT_NETWORK_GAMES: str = Field(
        "2000 per day",
        description=(
            "Other games started per network (`DAILY_NETWORKS`): with the new players a network "
            "can afford, it bounds what one network stores in a day "
            "([operations.md](operations.md#storage-per-network))."
        ),
    )
    DAILY_LIMIT_CODES: str = Field(
        "60 per hour", description=("Fresh friend codes made per player and per address.")
    )
    DAILY_LIMIT_MOVES: str = Field(
        "120 per minute",
        description=("Rolls and scores per player (per address for a move without one)."),
    )
    DAILY_LIMIT_PAGES: str = Field(
        "20 per second;600 per minute",
        description=(
            "Every request per client address; its rolls and scores (every player's) count on "
            "a budget of this size of their own."
        ),
    )
    DAILY_LIMIT_HINTS: str = Field(
        "5 per second;120 per minute", description="Hints per player and per address."
    )
    DAILY_LIMIT_ANALYSES: str = Field(
        "2 per second;30 per minute",
        description=("Analyses (the API's and the page's) per player and per address."),
    )
    DAILY_LIMIT_BUILDS: str = Field(
        "3 per hour",
        description=("Strategy tables a request starts building, per player and per address."),
    )
    DAILY_LIMIT_JOINS: str = Field(
        "10 per hour", description=("Leagues made or joined per player and per address.")
    )
    DAILY_LIMIT_NETWORK_JOINS: str = Field(
        "30 per hour", description=("Leagues made or joined per network.")
    )
    DAILY_LIMIT_DELETES: str = Field(
        "10 per hour", description=("Players deleted per client address.")
    )
    DAILY_LIMIT_REMINDERS: str = Field(
        "20 per hour", description="Streak reminders turned on or off, per player and address."
    )
    DAILY_VAPID_PRIVATE_KEY: str | None = Field(None, description=(
        "The VAPID private key (base64url, as `daily keys` prints it) that signs the streak "
        "reminders sent by Web Push. Unset (or without `DAILY_VAPID_SUBJECT`): no reminders, "
        "said in one line at start."))  # fmt: skip
    DAILY_VAPID_SUBJECT: str | None = Field(None, description=(
        "The contact the push services see on each reminder: `mailto:ops@example.org` or an "
        "https URL."))  # fmt: skip
    DAILY_PUSH_SERVICES: Origins = Field(written(PUSH_SERVICES), description=(
        "The push services a reminder subscription may name, as origins separated by commas "
        "(`*.` matches any subdomain): the browsers' own. The server posts to no other "
        "address."))  # fmt: skip
    DAILY_REMINDER_DAYS: Days = Field(written("30"), description=(
        "How long a reminder subscription is kept after its browser last confirmed it (each "
        "finished daily and each visit to the player's page does)."))  # fmt: skip

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The values handed in first (a test's, ``create_app``'s), then the environment."""
        return init_settings, _Variables(settings_cls)

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None, **values: Any) -> Self:
        """The variables of *environ* (default ``os.environ``) this model names, an empty one
        counting as unset, under the *values* handed in by variable name. A bad value raises
        :class:`ConfigError` naming its variable."""
        with _reading(os.environ if environ is None else environ):
            try:
                return cls(**values)
            except ValidationError as e:
                error = e.errors()[0]
                why = error.get("ctx", {}).get("error") or error["msg"]
                raise ConfigError(f"{error['loc'][0]}: {why}") from None

    @model_validator(mode="after")
    def _production_rules(self) -> Self:
        # Production needs real secrets (every key: a rotation must not bring a weak one
        # back) and a clock nobody froze.
        if self.DAILY_ENV != "production":
            return self
        if not self.SECRET_KEY or any(len(s) < 32 or s == DEV_SECRET for s in self.SECRET_KEY):
            raise ConfigError("production needs SECRET_KEY set to random strings of 32+ characters")
        if self.DAILY_NOW:
            raise ConfigError("DAILY_NOW freezes the clock and is refused in production")
        return self

    def limits(self) -> dict[str, str]:
        """The rate limits, by name (``players``, ``network_dailies``): each its default
        unless the environment sets it."""
        return {name: getattr(self, var) for name, var in LIMIT_VARS.items()}


#: Each rate limit's name and its variable.
LIMIT_VARS = {
    var.removeprefix(LIMIT_PREFIX).lower(): var
    for var in Environment.model_fields
    if var.startswith(LIMIT_PREFIX)
}
#: Each rate limit's default, by name.
LIMIT_DEFAULTS: dict[str, str] = {
    name: str(Environment.model_fields[var].default) for name, var in LIMIT_VARS.items()
}


@contextmanager
def _reading(environ: Mapping[str, str]) -> Iterator[None]:
    token = _ENVIRON.set(environ)
    try:
        yield
    finally:
        _ENVIRON.reset(token)


def environment_table() -> str:
    """The variables as docs/configuration.md prints them: name, default, meaning."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for name, info in Environment.model_fields.items():
        default = DEFAULTS_SHOWN.get(name) or (f"`{info.default}`" if info.default else "unset")
        lines.append(f"| `{name}` | {default} | {info.description} |")
    return "\n".join(lines)


#: How the table shows the defaults that are not a plain value.
DEFAULTS_SHOWN = {"SECRET_KEY": "a development secret", "DAILY_CACHE": "`~/.cache/daily`"}
