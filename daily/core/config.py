"""Settings from the environment, and the clock (frozen by ``DAILY_NOW`` outside production).

:class:`Environment` names every variable with its type, default and meaning (pydantic reads
them; docs/configuration.md prints the model's table); :func:`load` turns them, and any
overrides a test or ``create_app`` hands in, into the frozen :class:`Config` the service reads.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from daily.core.errors import ConfigError

#: The secret used when none is set, outside production only.
DEV_SECRET = "dev-secret-not-for-production"
ENVIRONMENTS = ("production", "development", "testing")
#: The rate limits (daily.web.limits) and the variables that set them, e.g. ``30 per hour``:
#: every field of :class:`Environment` named ``DAILY_LIMIT_*``.
LIMIT_PREFIX = "DAILY_LIMIT_"
#: The networks the network budgets count, as (IP version, prefix length): ``DAILY_NETWORKS``.
DEFAULT_NETWORKS = ((4, 24), (6, 56), (6, 48))
#: The strategy tables the service builds by itself, in order: ``DAILY_TABLES``.
DEFAULT_TABLES = ("maxi", "yatzy", "yahtzee", "yacht")
#: The variables whose empty value means "none", not "unset": ``DAILY_TABLES=`` builds none.
EMPTY_MEANS_NONE = frozenset({"DAILY_TABLES"})

Clock = Callable[[], datetime]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def system_clock() -> datetime:
    """The current time, in UTC."""
    return datetime.now(UTC)


def home_cache() -> Path:
    """The strategy tables' folder when ``DAILY_CACHE`` is unset: ``~/.cache/daily``."""
    return Path.home() / ".cache" / "daily"


def frozen_clock(at: datetime) -> Clock:
    """A clock that always says *at* (``DAILY_NOW``, and tests)."""
    return lambda: at


@dataclass(frozen=True, slots=True)
class Config:
    """Every setting of the service; see docs/configuration.md."""

    #: The key the dice derive from: the last (oldest) of SECRET_KEY's keys. It never changes
    #: while keys are rotated, so a day or code already dealt keeps its dice.
    secret_key: str = DEV_SECRET
    env: str = "development"
    redis_url: str | None = None
    data_dir: Path = Path("data")
    timezone: tzinfo = UTC
    board_retention_days: int = 400
    clock: Clock = field(default=system_clock, compare=False, repr=False)
    #: Every key of SECRET_KEY, newest first: tokens and cookies are signed with the first
    #: and accepted under any (empty: *secret_key* alone).
    secret_keys: tuple[str, ...] = field(default=(), repr=False)
    #: Rate limits by name (see LIMIT_VARS) that replace the defaults; ``off`` lifts one.
    rate_limits: Mapping[str, str] = field(default_factory=dict)
    #: The networks a client's address belongs to that the network budgets count, each
    #: (IP version, prefix length): an IPv4 /24, an IPv6 /56 and /48 by default.
    networks: tuple[tuple[int, int], ...] = DEFAULT_NETWORKS
    #: The reverse proxies in front, by address or CIDR: only a request from one of them may
    #: say, in X-Forwarded-For and -Proto, who the client is and how it came.
    trusted_proxies: tuple[Network, ...] = ()
    #: How long a friend code is ranked after it is made (a daily's code: at most its day).
    code_lifetime: timedelta = timedelta(days=7)
    #: How long an unfinished game, and a guest who never finished one, is kept when idle.
    idle_lifetime: timedelta = timedelta(days=30)
    #: The bearer token that opens ``/metrics``; None keeps it hidden (404).
    metrics_token: str | None = field(default=None, repr=False)
    #: Where finished games go when they leave Redis: an fsspec URL or a local folder;
    #: None: ``archive`` in *data_dir*.
    archive_url: str | None = None
    #: How many days a finished game stays in Redis before it is archived.
    archive_days: int = 30
    #: On how many days a player must have finished a ranked daily before their dailies
    #: rank on the world boards (day, best day, streak, advent); 1: at once.
    established_days: int = 3
    #: This host's folder of strategy tables (``DAILY_CACHE``).
    cache_dir: Path = field(default_factory=home_cache)
    #: The tables the service builds by itself, as ``ruleset[:name=value]`` specs, in order
    #: (none unless :func:`load` reads ``DAILY_TABLES``, whose default lists four).
    table_specs: tuple[str, ...] = ()
    #: The store the hosts share their strategy tables through; None: each builds its own.
    tables_url: str | None = None

    @property
    def archive_location(self) -> str:
        """The archive's URL or folder (``DAILY_ARCHIVE``, else ``archive`` in the data folder)."""
        return self.archive_url or str(self.data_dir / "archive")

    @property
    def is_production(self) -> bool:
        """Whether the service runs in production mode."""
        return self.env == "production"

    @property
    def signing_keys(self) -> tuple[str, ...]:
        """The keys that sign tokens and cookies, newest first."""
        return self.secret_keys or (self.secret_key,)

    def now(self) -> datetime:
        """The current time in the reference time zone."""
        return self.clock().astimezone(self.timezone)


def parse_timestamp(text: str) -> datetime:
    """Reads an ISO timestamp; a naive one is taken as UTC.

    >>> parse_timestamp("2026-12-01T09:30:00").isoformat()
    '2026-12-01T09:30:00+00:00'
    """
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"not an ISO timestamp: {text!r}") from None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def parse_secret_keys(text: str) -> tuple[str, ...]:
    """Splits SECRET_KEY into its keys, newest first: a rotation prepends ``new,``.

    >>> parse_secret_keys("new-key, old-key")
    ('new-key', 'old-key')
    """
    return tuple(key.strip() for key in text.split(",") if key.strip())


class Environment(BaseModel):
    """The service's environment variables, one typed field each with its default and its
    meaning: what :func:`load` reads, and the table docs/configuration.md prints
    (:func:`environment_table`). Values stay text where a parser below reads them (lists,
    limits, time zones), so a bad one is refused with the variable's name."""

    model_config = ConfigDict(frozen=True, extra="ignore", str_strip_whitespace=True)

    SECRET_KEY: str = Field("", description=(
        "Keys, newest first, separated by commas (`new,old`). The newest signs session cookies "
        "and player tokens and any of them is accepted, so a key can be rotated by prepending "
        "a new one. The last (oldest) key derives the daily and friend seeds and must never "
        "change: every dealt day would get other dice, so production records its fingerprint "
        "in Redis and refuses to serve under another. Production needs every key to have 32+ "
        "characters. Unset: a development secret."))  # fmt: skip
    DAILY_ENV: str = Field("development", description=(
        "`production`, `development` or `testing`. Production sends secure cookies and "
        "refuses `DAILY_NOW` and a missing secret."))  # fmt: skip
    REDIS_URL: str | None = Field(
        None,
        description=(
            "The Redis server (`redis://host:6379/0`, `rediss://`, `unix://`) or a Redis Cluster "
            "(`redis+cluster://host:port`, one node is enough). Unset: the embedded Redis."
        ),
    )
    DAILY_DATA: str = Field(
        "data", description=("Folder of the embedded Redis's database (when `REDIS_URL` is unset).")
    )
    DAILY_TZ: str = Field(
        "UTC",
        description=(
            "The reference time zone (IANA name, e.g. `Europe/Copenhagen`): when a day starts "
            "and closes."
        ),
    )
    DAILY_NOW: str | None = Field(
        None,
        description=(
            "An ISO timestamp (`2026-12-24T09:00:00`, UTC unless it says) that freezes the "
            "clock, for demos and tests; refused in production."
        ),
    )
    DAILY_BOARD_RETENTION_DAYS: str = Field(
        "400", description=("How long a date's leaderboard is kept after the date.")
    )
    DAILY_CODE_DAYS: str = Field(
        "7",
        description=(
            "How long a friend code is ranked (a daily's code: at most until its day closes)."
        ),
    )
    DAILY_IDLE_DAYS: str = Field(
        "30", description=("How long an unfinished solo, party or computer game is kept when idle.")
    )
    DAILY_ARCHIVE: str | None = Field(
        None,
        description=(
            "Where finished games go when they leave Redis: a local folder, or an fsspec URL "
            "that every web host shares (`s3://bucket/daily` with `s3fs` installed and its usual "
            "`AWS_*` settings; any S3-compatible store). Unset: `DAILY_DATA/archive`."
        ),
    )
    DAILY_ARCHIVE_DAYS: str = Field(
        "30",
        description=(
            "How many days a finished game stays in Redis before `daily archive` (and the "
            "service's sweep) moves it to the archive."
        ),
    )
    DAILY_ESTABLISHED_DAYS: str = Field(
        "3",
        description=(
            "On how many different days a player must have finished a ranked daily before their "
            "dailies rank on the world boards (day, best day, streak, advent); until then they "
            "rank on friend codes' boards and leagues. 1: at once."
        ),
    )
    DAILY_TRUSTED_PROXIES: str = Field(
        "",
        description=(
            "The reverse proxies in front, by address or CIDR, comma-separated (`10.0.0.2, "
            "10.1.0.0/16`): only their requests may set `X-Forwarded-For` and "
            "`X-Forwarded-Proto` (the client address the limits count). A number (the old count "
            "of proxies) is refused."
        ),
    )
    DAILY_NETWORKS: str = Field(
        "ipv4/24, ipv6/56, ipv6/48",
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
    DAILY_CACHE: str | None = Field(None, description=(
        "Folder of the strategy tables on this host (shared by every process that serves from "
        "it; also the build queue and the builder's lock)."))  # fmt: skip
    DAILY_TABLES: str = Field(",".join(DEFAULT_TABLES), description=(
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

    @classmethod
    def read(cls, environ: Mapping[str, str]) -> Environment:
        """The variables of *environ* this model names (an empty one counts as unset)."""
        return cls.model_validate({k: v for k, v in environ.items() if k in cls.model_fields
                                   and (v.strip() or k in EMPTY_MEANS_NONE)})  # fmt: skip

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


def environment_table() -> str:
    """The variables as docs/configuration.md prints them: name, default, meaning."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for name, info in Environment.model_fields.items():
        default = DEFAULTS_SHOWN.get(name) or (f"`{info.default}`" if info.default else "unset")
        lines.append(f"| `{name}` | {default} | {info.description} |")
    return "\n".join(lines)


#: How the table shows the defaults that are not a plain value.
DEFAULTS_SHOWN = {"SECRET_KEY": "a development secret", "DAILY_CACHE": "`~/.cache/daily`"}


def load(environ: Mapping[str, str] | None = None, **overrides: Any) -> Config:
    """Builds the config from *environ* (default ``os.environ``) and *overrides*."""
    env = Environment.read(os.environ if environ is None else environ)
    mode = overrides.pop("env", env.DAILY_ENV)
    if mode not in ENVIRONMENTS:
        raise ConfigError(f"DAILY_ENV must be one of {', '.join(ENVIRONMENTS)}, got {mode!r}")
    secrets = _secrets(mode, overrides.pop("secret_key", env.SECRET_KEY))
    clock = overrides.pop("clock", None) or _clock(mode, env.DAILY_NOW)
    zone = _zone(overrides.pop("timezone", env.DAILY_TZ))
    retention = overrides.pop("board_retention_days", env.DAILY_BOARD_RETENTION_DAYS)
    limits = env.limits() | overrides.pop("rate_limits", {})
    proxies = overrides.pop("trusted_proxies", env.DAILY_TRUSTED_PROXIES)
    networks = overrides.pop("networks", env.DAILY_NETWORKS)
    lifetime = _days(overrides.pop("code_lifetime", env.DAILY_CODE_DAYS), "DAILY_CODE_DAYS")
    idle = _days(overrides.pop("idle_lifetime", env.DAILY_IDLE_DAYS), "DAILY_IDLE_DAYS")
    archive_days = overrides.pop("archive_days", env.DAILY_ARCHIVE_DAYS)
    established = overrides.pop("established_days", env.DAILY_ESTABLISHED_DAYS)
    return Config(
        secret_key=secrets[-1] if secrets else DEV_SECRET,
        secret_keys=secrets,
        env=mode,
        redis_url=overrides.pop("redis_url", env.REDIS_URL),
        data_dir=Path(overrides.pop("data_dir", env.DAILY_DATA)),
        timezone=zone,
        board_retention_days=_whole_days(retention, "DAILY_BOARD_RETENTION_DAYS"),
        rate_limits=limits,
        trusted_proxies=parse_proxies(proxies),
        networks=parse_networks(networks),
        code_lifetime=lifetime,
        idle_lifetime=idle,
        metrics_token=overrides.pop("metrics_token", env.DAILY_METRICS_TOKEN),
        archive_url=overrides.pop("archive_url", env.DAILY_ARCHIVE),
        archive_days=_whole_days(archive_days, "DAILY_ARCHIVE_DAYS"),
        established_days=_whole_days(established, "DAILY_ESTABLISHED_DAYS"),
        cache_dir=Path(overrides.pop("cache_dir", None) or env.DAILY_CACHE or home_cache()),
        table_specs=tuple(overrides.pop("table_specs", _specs(env.DAILY_TABLES))),
        tables_url=overrides.pop("tables_url", env.DAILY_TABLES_URL),
        clock=clock,
        **overrides,
    )


def parse_proxies(text: str | tuple[Network, ...]) -> tuple[Network, ...]:
    """Reads ``DAILY_TRUSTED_PROXIES``: addresses or CIDR blocks, separated by commas.

    >>> parse_proxies("10.0.0.2, 192.168.0.0/16, ::1")
    (IPv4Network('10.0.0.2/32'), IPv4Network('192.168.0.0/16'), IPv6Network('::1/128'))
    >>> parse_proxies("1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daily.core.errors.ConfigError: DAILY_TRUSTED_PROXIES names the proxies by address or CIDR ...
    """
    if isinstance(text, tuple):
        return text
    found = []
    for item in filter(None, (part.strip() for part in str(text).split(","))):
        try:
            if item.isdigit():  # the old count of proxies: it trusted any peer
                raise ValueError(item)
            found.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ConfigError(
                "DAILY_TRUSTED_PROXIES names the proxies by address or CIDR "
                f"(10.0.0.2, 10.0.0.0/8), got {item!r}"
            ) from None
    return tuple(found)


def parse_networks(text: str | tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """Reads ``DAILY_NETWORKS``: ``ipv4/24, ipv6/56, ipv6/48``, each an IP version and the
    prefix length of the networks whose clients share the network budgets.

    >>> parse_networks("ipv4/24, ipv6/48")
    ((4, 24), (6, 48))
    >>> parse_networks("/24")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daily.core.errors.ConfigError: DAILY_NETWORKS names networks as ipv4/24 or ipv6/56, ...
    """
    if isinstance(text, tuple):
        return text
    found = []
    for item in filter(None, (part.strip().lower() for part in text.split(","))):
        version, _, length = item.partition("/")
        top = {"ipv4": 32, "ipv6": 128}.get(version)
        if top is None or not length.isdigit() or not 0 < int(length) <= top:
            raise ConfigError(
                f"DAILY_NETWORKS names networks as ipv4/24 or ipv6/56, got {item!r}"
            ) from None
        found.append((int(version[3]), int(length)))
    return tuple(found)


def _specs(text: str) -> tuple[str, ...]:
    """Splits ``DAILY_TABLES`` into its specs (read by :mod:`daily.strategy.specs`).

    >>> _specs("maxi, yatzy:forced=true"), _specs("")
    (('maxi', 'yatzy:forced=true'), ())
    """
    return tuple(spec.strip() for spec in text.split(",") if spec.strip())


def _secrets(mode: str, text: str) -> tuple[str, ...]:
    secrets = parse_secret_keys(text)
    if mode == "production" and (
        not secrets or any(len(s) < 32 or s == DEV_SECRET for s in secrets)
    ):
        raise ConfigError("production needs SECRET_KEY set to random strings of 32+ characters")
    return secrets


def _clock(mode: str, frozen: str | None) -> Clock:
    if frozen and mode == "production":
        raise ConfigError("DAILY_NOW freezes the clock and is refused in production")
    return frozen_clock(parse_timestamp(frozen)) if frozen else system_clock


def _zone(name: str | tzinfo) -> tzinfo:
    try:
        return ZoneInfo(name) if isinstance(name, str) else name
    except (ValueError, KeyError):
        raise ConfigError(f"unknown time zone: {name!r}") from None


def _days(value: object, name: str) -> timedelta:
    """A lifetime in days (a number, or a timedelta given by a test); positive.

    >>> _days("1.5", "X")
    datetime.timedelta(days=1, seconds=43200)
    """
    if isinstance(value, timedelta):
        days = value / timedelta(days=1)
    else:
        try:
            days = float(str(value))
        except ValueError:
            raise ConfigError(f"{name} must be a number of days, got {value!r}") from None
    if not 0 < days < 100_000:
        raise ConfigError(f"{name} must be a positive number of days, got {value!r}")
    return timedelta(days=days)


def _whole_days(value: object, name: str) -> int:
    """A positive whole number of days (checked as :func:`_days` checks a lifetime).

    >>> _whole_days("30", "X")
    30
    """
    days = _days(value, name)
    if days % timedelta(days=1):
        raise ConfigError(f"{name} must be a whole number of days, got {value!r}")
    return days.days
