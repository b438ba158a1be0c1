"""Settings from the environment, and the clock (frozen by ``DAILY_NOW`` outside production).

:class:`Environment` names every variable with its type, default and meaning (pydantic reads
them; docs/configuration.md prints the model's table); :func:`load` turns them, and any
overrides a test or ``create_app`` hands in, into the frozen :class:`Config` the service reads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any, TypeVar

from daily.core.environment import DEFAULT_TABLES as DEFAULT_TABLES
from daily.core.environment import EMPTY_MEANS_NONE as EMPTY_MEANS_NONE
from daily.core.environment import LIMIT_DEFAULTS as LIMIT_DEFAULTS
from daily.core.environment import LIMIT_VARS as LIMIT_VARS
from daily.core.environment import PUSH_SERVICES as PUSH_SERVICES
from daily.core.environment import Environment as Environment
from daily.core.environment import environment_table as environment_table
from daily.core.errors import ConfigError
from daily.core.parsed import Network as Network
from daily.core.parsed import days, origins, parse_specs, whole_days, zone
from daily.core.parsed import parse_networks as parse_networks
from daily.core.parsed import parse_proxies as parse_proxies
from daily.core.parsed import parse_secret_keys as parse_secret_keys
from daily.core.parsed import parse_timestamp as parse_timestamp

#: The secret used when none is set, outside production only.
DEV_SECRET = "dev-secret-not-for-production"
ENVIRONMENTS = ("production", "development", "testing")
#: The networks the network budgets count, as (IP version, prefix length): ``DAILY_NETWORKS``.
DEFAULT_NETWORKS = ((4, 24), (6, 56), (6, 48))

Clock = Callable[[], datetime]
T = TypeVar("T")


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
    #: The VAPID private key that signs streak reminders (``daily keys``); None: no reminders.
    vapid_private_key: str | None = field(default=None, repr=False)
    #: Who the push services may write to about the reminders (a ``mailto:`` or https URL).
    vapid_subject: str | None = None
    #: The push services a subscription's endpoint may name, as origins (``https://*.x.com``).
    push_services: tuple[str, ...] = ()
    #: How long a reminder subscription is kept when its player's browser does not renew it.
    reminder_lifetime: timedelta = timedelta(days=30)
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


def load(environ: Mapping[str, str] | None = None, **overrides: Any) -> Config:
    """Builds the config from *environ* (default ``os.environ``) and *overrides*."""
    env = Environment.read(os.environ if environ is None else environ)
    mode = overrides.pop("env", env.DAILY_ENV)
    if mode not in ENVIRONMENTS:
        raise ConfigError(f"DAILY_ENV must be one of {', '.join(ENVIRONMENTS)}, got {mode!r}")
    secrets = _secrets(mode, overrides.pop("secret_key", env.SECRET_KEY))
    clock = overrides.pop("clock", None) or _clock(mode, env.DAILY_NOW)
    tz = _named(zone, overrides.pop("timezone", env.DAILY_TZ), "DAILY_TZ")
    retention = overrides.pop("board_retention_days", env.DAILY_BOARD_RETENTION_DAYS)
    limits = env.limits() | overrides.pop("rate_limits", {})
    proxies = overrides.pop("trusted_proxies", env.DAILY_TRUSTED_PROXIES)
    networks = overrides.pop("networks", env.DAILY_NETWORKS)
    lifetime = _named(days, overrides.pop("code_lifetime", env.DAILY_CODE_DAYS), "DAILY_CODE_DAYS")
    idle = _named(days, overrides.pop("idle_lifetime", env.DAILY_IDLE_DAYS), "DAILY_IDLE_DAYS")
    archive_days = overrides.pop("archive_days", env.DAILY_ARCHIVE_DAYS)
    established = overrides.pop("established_days", env.DAILY_ESTABLISHED_DAYS)
    services = overrides.pop("push_services", env.DAILY_PUSH_SERVICES)
    reminders = overrides.pop("reminder_lifetime", env.DAILY_REMINDER_DAYS)
    return Config(
        secret_key=secrets[-1] if secrets else DEV_SECRET,
        secret_keys=secrets,
        env=mode,
        redis_url=overrides.pop("redis_url", env.REDIS_URL),
        data_dir=Path(overrides.pop("data_dir", env.DAILY_DATA)),
        timezone=tz,
        board_retention_days=_named(whole_days, retention, "DAILY_BOARD_RETENTION_DAYS"),
        rate_limits=limits,
        trusted_proxies=parse_proxies(proxies),
        networks=parse_networks(networks),
        code_lifetime=lifetime,
        idle_lifetime=idle,
        metrics_token=overrides.pop("metrics_token", env.DAILY_METRICS_TOKEN),
        archive_url=overrides.pop("archive_url", env.DAILY_ARCHIVE),
        archive_days=_named(whole_days, archive_days, "DAILY_ARCHIVE_DAYS"),
        established_days=_named(whole_days, established, "DAILY_ESTABLISHED_DAYS"),
        vapid_private_key=overrides.pop("vapid_private_key", env.DAILY_VAPID_PRIVATE_KEY),
        vapid_subject=overrides.pop("vapid_subject", env.DAILY_VAPID_SUBJECT),
        push_services=origins(services),
        reminder_lifetime=_named(days, reminders, "DAILY_REMINDER_DAYS"),
        cache_dir=Path(overrides.pop("cache_dir", None) or env.DAILY_CACHE or home_cache()),
        table_specs=parse_specs(overrides.pop("table_specs", env.DAILY_TABLES)),
        tables_url=overrides.pop("tables_url", env.DAILY_TABLES_URL),
        clock=clock,
        **overrides,
    )


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


def _named(parser: Callable[[object], T], value: object, name: str) -> T:
    """*value* read by *parser*; a bad one refused with the variable's *name*."""
    try:
        return parser(value)
    except ValueError as e:
        raise ConfigError(f"{name}: {e}") from None
