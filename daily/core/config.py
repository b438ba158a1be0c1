"""The service's settings: :class:`Config`, one typed field each, read from the environment
(pydantic-settings, :mod:`daily.core.environment`), and the clock (frozen by ``DAILY_NOW``
outside production).

Each field names its variable, its default as written and its meaning; its type parses the
text (:mod:`daily.core.parsed`). docs/configuration.md prints the table
(:func:`environment_table`); :func:`load` reads the settings once, at start, with any
overrides a test or ``create_app`` hands in, and the service hands them down.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field, model_validator
from pydantic.fields import FieldInfo

from daily.core.environment import (
    DEFAULT_TABLES,
    DEV_SECRET,
    PUSH_SERVICES,
    Settings,
    home_cache,
    written,
)
from daily.core.environment import EMPTY_MEANS_NONE as EMPTY_MEANS_NONE
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
from daily.core.parsed import Network as Network
from daily.core.parsed import parse_networks as parse_networks
from daily.core.parsed import parse_proxies as parse_proxies
from daily.core.parsed import parse_secret_keys as parse_secret_keys
from daily.core.parsed import parse_timestamp as parse_timestamp

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The current time, in UTC."""
    return datetime.now(UTC)


def frozen_clock(at: datetime) -> Clock:
    """A clock that always says *at* (``DAILY_NOW``, and tests)."""
    return lambda: at


class Limits(Settings):
    """The rate limits (:mod:`daily.web.limits`), one field each with its variable
    (``DAILY_LIMIT_*``), e.g. ``30 per hour`` or ``20 per second;600 per minute``; ``off``
    lifts one. Read with the settings they belong to (:attr:`Config.rate_limits`)."""

    players: str = Field(
        default="30 per hour",
        description="New players per client address, browser guests too.",
        validation_alias="DAILY_LIMIT_PLAYERS",
    )
    network_players: str = Field(
        default="120 per hour",
        description=("New players per network (`DAILY_NETWORKS`)."),
        validation_alias="DAILY_LIMIT_NETWORK_PLAYERS",
    )
    dailies: str = Field(
        default="50 per day",
        description=("Ranked dailies started per client address, in the puzzle day's window."),
        validation_alias="DAILY_LIMIT_DAILIES",
    )
    network_dailies: str = Field(
        default="150 per day",
        description=("Ranked dailies started per network, in the puzzle day's window."),
        validation_alias="DAILY_LIMIT_NETWORK_DAILIES",
    )
    games: str = Field(
        default="120 per hour",
        description=(
            "Other games started (solo, computer, party, practice, friend) per player and per "
            "address."
        ),
        validation_alias="DAILY_LIMIT_GAMES",
    )
    network_games: str = Field(
        default="2000 per day",
        description=(
            "Other games started per network (`DAILY_NETWORKS`): with the new players a network "
            "can afford, it bounds what one network stores in a day "
            "([operations.md](operations.md#storage-per-network))."
        ),
        validation_alias="DAILY_LIMIT_NETWORK_GAMES",
    )
    codes: str = Field(
        default="60 per hour",
        description=("Fresh friend codes made per player and per address."),
        validation_alias="DAILY_LIMIT_CODES",
    )
    moves: str = Field(
        default="120 per minute",
        description=("Rolls and scores per player (per address for a move without one)."),
        validation_alias="DAILY_LIMIT_MOVES",
    )
    pages: str = Field(
        default="20 per second;600 per minute",
        description=(
            "Every request per client address; its rolls and scores (every player's) count on "
            "a budget of this size of their own."
        ),
        validation_alias="DAILY_LIMIT_PAGES",
    )
    hints: str = Field(
        default="5 per second;120 per minute",
        description="Hints per player and per address.",
        validation_alias="DAILY_LIMIT_HINTS",
    )
    analyses: str = Field(
        default="2 per second;30 per minute",
        description=("Analyses (the API's and the page's) per player and per address."),
        validation_alias="DAILY_LIMIT_ANALYSES",
    )
    builds: str = Field(
        default="3 per hour",
        description=("Strategy tables a request starts building, per player and per address."),
        validation_alias="DAILY_LIMIT_BUILDS",
    )
    joins: str = Field(
        default="10 per hour",
        description=("Leagues made or joined per player and per address."),
        validation_alias="DAILY_LIMIT_JOINS",
    )
    network_joins: str = Field(
        default="30 per hour",
        description=("Leagues made or joined per network."),
        validation_alias="DAILY_LIMIT_NETWORK_JOINS",
    )
    deletes: str = Field(
        default="10 per hour",
        description=("Players deleted per client address."),
        validation_alias="DAILY_LIMIT_DELETES",
    )
    reminders: str = Field(
        default="20 per hour",
        description="Streak reminders turned on or off, per player and address.",
        validation_alias="DAILY_LIMIT_REMINDERS",
    )

    def as_dict(self) -> dict[str, str]:
        """The limits by name (``players``, ``network_dailies``)."""
        return {name: str(getattr(self, name)) for name in type(self).model_fields}


class Config(Settings):
    """Every setting of the service, each with its variable, default and meaning (the table
    of docs/configuration.md); read once at start (:func:`load`) and handed down."""

    secret_keys: SecretKeys = Field(
        default=written(""),
        description=(
            "Keys, newest first, separated by commas (`new,old`). The newest signs session cookies "
            "and player tokens and any of them is accepted, so a key can be rotated by prepending "
            "a new one. The last (oldest) key derives the daily and friend seeds and must never "
            "change: every dealt day would get other dice, so production records its fingerprint "
            "in Redis and refuses to serve under another. Production needs every key to have 32+ "
            "characters. Unset: a development secret."
        ),
        validation_alias="SECRET_KEY",
        repr=False,
    )
    env: Literal["production", "development", "testing"] = Field(
        default="development",
        description=(
            "`production`, `development` or `testing`. Production sends secure cookies and "
            "refuses `DAILY_NOW` and a missing secret."
        ),
        validation_alias="DAILY_ENV",
    )
    redis_url: str | None = Field(
        default=None,
        description=(
            "The Redis server (`redis://host:6379/0`, `rediss://`, `unix://`) or a Redis Cluster "
            "(`redis+cluster://host:port`, one node is enough). Unset: the embedded Redis."
        ),
        validation_alias="REDIS_URL",
    )
    data_dir: Path = Field(
        default=written("data"),
        description=("Folder of the embedded Redis's database (when `REDIS_URL` is unset)."),
        validation_alias="DAILY_DATA",
    )
    timezone: Zone = Field(
        default=written("UTC"),
        description=(
            "The reference time zone (IANA name, e.g. `Europe/Copenhagen`): when a day starts "
            "and closes."
        ),
        validation_alias="DAILY_TZ",
    )
    frozen_at: Timestamp | None = Field(
        default=None,
        description=(
            "An ISO timestamp (`2026-12-24T09:00:00`, UTC unless it says) that freezes the "
            "clock, for demos and tests; refused in production."
        ),
        validation_alias="DAILY_NOW",
    )
    board_retention_days: WholeDays = Field(
        default=written("400"),
        description=("How long a date's leaderboard is kept after the date."),
        validation_alias="DAILY_BOARD_RETENTION_DAYS",
    )
    code_lifetime: Days = Field(
        default=written("7"),
        description=(
            "How long a friend code is ranked (a daily's code: at most until its day closes)."
        ),
        validation_alias="DAILY_CODE_DAYS",
    )
    idle_lifetime: Days = Field(
        default=written("30"),
        description=("How long an unfinished solo, party or computer game is kept when idle."),
        validation_alias="DAILY_IDLE_DAYS",
    )
    archive_url: str | None = Field(
        default=None,
        description=(
            "Where finished games go when they leave Redis: a local folder, or an fsspec URL "
            "that every web host shares (`s3://bucket/daily` with `s3fs` installed and its usual "
            "`AWS_*` settings; any S3-compatible store). Unset: `DAILY_DATA/archive`."
        ),
        validation_alias="DAILY_ARCHIVE",
    )
    archive_days: WholeDays = Field(
        default=written("30"),
        description=(
            "How many days a finished game stays in Redis before `daily archive` (and the "
            "service's sweep) moves it to the archive."
        ),
        validation_alias="DAILY_ARCHIVE_DAYS",
    )
    established_days: WholeDays = Field(
        default=written("3"),
        description=(
            "On how many different days a player must have finished a ranked daily before their "
            "dailies rank on the world boards (day, best day, streak, advent); until then they "
            "rank on friend codes' boards and leagues. 1: at once."
        ),
        validation_alias="DAILY_ESTABLISHED_DAYS",
    )
    trusted_proxies: Proxies = Field(
        default=written(""),
        description=(
            "The reverse proxies in front, by address or CIDR, comma-separated (`10.0.0.2, "
            "10.1.0.0/16`): only their requests may set `X-Forwarded-For` and "
            "`X-Forwarded-Proto` (the client address the limits count). A number (the old count "
            "of proxies) is refused."
        ),
        validation_alias="DAILY_TRUSTED_PROXIES",
    )
    networks: Networks = Field(
        default=written("ipv4/24, ipv6/56, ipv6/48"),
        description=(
            "The networks a client address belongs to that count new players, ranked dailies "
            "and league joins together (`DAILY_LIMIT_NETWORK_*`)."
        ),
        validation_alias="DAILY_NETWORKS",
    )
    metrics_token: str | None = Field(
        default=None,
        description=(
            "The bearer token that opens `/metrics` (Prometheus); unset, `/metrics` is a 404."
        ),
        validation_alias="DAILY_METRICS_TOKEN",
        repr=False,
    )
    cache_dir: Path = Field(
        default_factory=home_cache,
        description=(
            "Folder of the strategy tables on this host (shared by every process that serves from "
            "it; also the build queue and the builder's lock)."
        ),
        validation_alias="DAILY_CACHE",
    )
    table_specs: Specs = Field(
        default=written(",".join(DEFAULT_TABLES)),
        description=(
            "The strategy tables the service builds by itself, in order, as "
            "`ruleset[:name=value,...]`; empty: none."
        ),
        validation_alias="DAILY_TABLES",
    )
    tables_url: str | None = Field(
        default=None,
        description=(
            "The store several hosts share their strategy tables through: a folder every host "
            "mounts, or an fsspec URL (`s3://bucket/tables` with `s3fs` installed and its usual "
            "`AWS_*` settings; any S3-compatible store). A table is built once (by the release "
            "step or the first host that needs it) and uploaded; every other host fetches it into "
            "`DAILY_CACHE` and never builds it. Unset: each host builds its own. See "
            "[strategy.md](strategy.md#several-hosts-one-table) and "
            "[operations.md](operations.md#strategy-tables-on-several-hosts)."
        ),
        validation_alias="DAILY_TABLES_URL",
    )
    rate_limits: Limits = Field(
        default_factory=Limits,
        description="The rate limits, each read from its `DAILY_LIMIT_*` variable.",
    )
    vapid_private_key: str | None = Field(
        default=None,
        description=(
            "The VAPID private key (base64url, as `daily keys` prints it) that signs the streak "
            "reminders sent by Web Push. Unset (or without `DAILY_VAPID_SUBJECT`): no reminders, "
            "said in one line at start."
        ),
        validation_alias="DAILY_VAPID_PRIVATE_KEY",
        repr=False,
    )
    vapid_subject: str | None = Field(
        default=None,
        description=(
            "The contact the push services see on each reminder: `mailto:ops@example.org` or an "
            "https URL."
        ),
        validation_alias="DAILY_VAPID_SUBJECT",
    )
    push_services: Origins = Field(
        default=written(PUSH_SERVICES),
        description=(
            "The push services a reminder subscription may name, as origins separated by commas "
            "(`*.` matches any subdomain): the browsers' own. The server posts to no other "
            "address."
        ),
        validation_alias="DAILY_PUSH_SERVICES",
    )
    reminder_lifetime: Days = Field(
        default=written("30"),
        description=(
            "How long a reminder subscription is kept after its browser last confirmed it (each "
            "finished daily and each visit to the player's page does)."
        ),
        validation_alias="DAILY_REMINDER_DAYS",
    )
    #: What the service reads the time from: the system's, or ``DAILY_NOW``'s frozen one,
    #: or a test's.
    clock: Clock = Field(default=system_clock, exclude=True, repr=False)

    @model_validator(mode="after")
    def _checked(self) -> Self:
        # Production needs real secrets (every key: a rotation must not bring a weak one
        # back) and a clock nobody froze.
        if self.env == "production":
            if not self.secret_keys or any(
                len(s) < 32 or s == DEV_SECRET for s in self.secret_keys
            ):
                raise ConfigError(
                    "production needs SECRET_KEY set to random strings of 32+ characters"
                )
            if self.frozen_at:
                raise ConfigError("DAILY_NOW freezes the clock and is refused in production")
        if self.frozen_at and self.clock is system_clock:
            # The one value derived from another; the model is frozen once validated.
            object.__setattr__(self, "clock", frozen_clock(self.frozen_at))
        return self

    @property
    def secret_key(self) -> str:
        """The key the dice derive from: the last (oldest) of SECRET_KEY's keys. It never
        changes while keys are rotated, so a day or code already dealt keeps its dice."""
        return self.secret_keys[-1] if self.secret_keys else DEV_SECRET

    @property
    def signing_keys(self) -> tuple[str, ...]:
        """The keys that sign tokens and cookies, newest first (and accepted under any)."""
        return self.secret_keys or (self.secret_key,)

    @property
    def archive_location(self) -> str:
        """The archive's URL or folder (``DAILY_ARCHIVE``, else ``archive`` in the data folder)."""
        return self.archive_url or str(self.data_dir / "archive")

    @property
    def is_production(self) -> bool:
        """Whether the service runs in production mode."""
        return self.env == "production"

    def now(self) -> datetime:
        """The current time in the reference time zone."""
        return self.clock().astimezone(self.timezone)


def _variable(model: type[Settings], name: str) -> str:
    alias = model.model_fields[name].validation_alias
    return alias if isinstance(alias, str) else name


#: Each rate limit's name and its variable.
LIMIT_VARS = {name: _variable(Limits, name) for name in Limits.model_fields}
#: Each rate limit's default, by name.
LIMIT_DEFAULTS: dict[str, str] = {
    name: str(info.default) for name, info in Limits.model_fields.items()
}


def load(environ: Mapping[str, str] | None = None, **overrides: Any) -> Config:
    """The settings from *environ* (default ``os.environ``) and *overrides* by field name
    (``code_lifetime=timedelta(days=2)``, ``trusted_proxies="10.0.0.2"``; ``secret_key``
    for SECRET_KEY, ``rate_limits`` a mapping of the limits to change), each parsed by the
    model's types; a bad value raises :class:`ConfigError` naming its variable."""
    if "secret_key" in overrides:
        overrides["secret_keys"] = overrides.pop("secret_key")
    limits = overrides.pop("rate_limits", {})
    unknown = sorted(set(limits) - set(LIMIT_VARS))
    if unknown:
        raise ConfigError(f"unknown rate limit: {unknown[0]!r} (known: {', '.join(LIMIT_VARS)})")
    if limits:  # over the environment's
        overrides["rate_limits"] = Limits.read(environ, **limits)
    return Config.read(environ, **overrides)


def environment_table() -> str:
    """The variables as docs/configuration.md prints them: name, default, meaning."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for name, info in Config.model_fields.items():
        if info.annotation is Limits:  # its variables, in their place
            lines += [_row(Limits, n, i) for n, i in Limits.model_fields.items()]
        elif _variable(Config, name) != name:  # not the clock, which no variable sets
            lines.append(_row(Config, name, info))
    return "\n".join(lines)


def _row(model: type[Settings], name: str, info: FieldInfo) -> str:
    var = _variable(model, name)
    default = DEFAULTS_SHOWN.get(var) or (f"`{info.default}`" if info.default else "unset")
    return f"| `{var}` | {default} | {info.description} |"


#: How the table shows the defaults that are not a plain value.
DEFAULTS_SHOWN = {"SECRET_KEY": "a development secret", "DAILY_CACHE": "`~/.cache/daily`"}
