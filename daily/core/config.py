"""Settings from the environment, and the clock (frozen by ``DAILY_NOW`` outside production).

:class:`Environment` names every variable with its type, default and meaning (pydantic reads
them; docs/configuration.md prints the model's table); :func:`load` turns them, and any
overrides a test or ``create_app`` hands in, into the frozen :class:`Config` the service reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from daily.core.environment import DEFAULT_TABLES as DEFAULT_TABLES
from daily.core.environment import DEV_SECRET as DEV_SECRET
from daily.core.environment import EMPTY_MEANS_NONE as EMPTY_MEANS_NONE
from daily.core.environment import LIMIT_DEFAULTS as LIMIT_DEFAULTS
from daily.core.environment import LIMIT_VARS as LIMIT_VARS
from daily.core.environment import PUSH_SERVICES as PUSH_SERVICES
from daily.core.environment import Environment as Environment
from daily.core.environment import environment_table as environment_table
from daily.core.environment import home_cache as home_cache
from daily.core.parsed import Network as Network
from daily.core.parsed import parse_networks as parse_networks
from daily.core.parsed import parse_proxies as parse_proxies
from daily.core.parsed import parse_secret_keys as parse_secret_keys
from daily.core.parsed import parse_timestamp as parse_timestamp

ENVIRONMENTS = ("production", "development", "testing")
#: The networks the network budgets count, as (IP version, prefix length): ``DAILY_NETWORKS``.
DEFAULT_NETWORKS = ((4, 24), (6, 56), (6, 48))

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The current time, in UTC."""
    return datetime.now(UTC)


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


#: The variable each overridable setting of :class:`Config` is read from.
VARIABLES = {
    "secret_key": "SECRET_KEY",
    "env": "DAILY_ENV",
    "redis_url": "REDIS_URL",
    "data_dir": "DAILY_DATA",
    "timezone": "DAILY_TZ",
    "board_retention_days": "DAILY_BOARD_RETENTION_DAYS",
    "trusted_proxies": "DAILY_TRUSTED_PROXIES",
    "networks": "DAILY_NETWORKS",
    "code_lifetime": "DAILY_CODE_DAYS",
    "idle_lifetime": "DAILY_IDLE_DAYS",
    "metrics_token": "DAILY_METRICS_TOKEN",
    "archive_url": "DAILY_ARCHIVE",
    "archive_days": "DAILY_ARCHIVE_DAYS",
    "established_days": "DAILY_ESTABLISHED_DAYS",
    "vapid_private_key": "DAILY_VAPID_PRIVATE_KEY",
    "vapid_subject": "DAILY_VAPID_SUBJECT",
    "push_services": "DAILY_PUSH_SERVICES",
    "reminder_lifetime": "DAILY_REMINDER_DAYS",
    "cache_dir": "DAILY_CACHE",
    "table_specs": "DAILY_TABLES",
    "tables_url": "DAILY_TABLES_URL",
}


def load(environ: Mapping[str, str] | None = None, **overrides: Any) -> Config:
    """Builds the config from *environ* (default ``os.environ``) and *overrides* (by
    :class:`Config`'s field names), each parsed by the model's types."""
    clock = overrides.pop("clock", None)
    limits = overrides.pop("rate_limits", {})
    given = {VARIABLES[k]: overrides.pop(k) for k in list(overrides) if k in VARIABLES}
    env = Environment.read(environ, **given)
    secrets = env.SECRET_KEY
    return Config(
        secret_key=secrets[-1] if secrets else DEV_SECRET,
        secret_keys=secrets,
        env=env.DAILY_ENV,
        redis_url=env.REDIS_URL,
        data_dir=env.DAILY_DATA,
        timezone=env.DAILY_TZ,
        board_retention_days=env.DAILY_BOARD_RETENTION_DAYS,
        rate_limits=env.limits() | limits,
        trusted_proxies=env.DAILY_TRUSTED_PROXIES,
        networks=env.DAILY_NETWORKS,
        code_lifetime=env.DAILY_CODE_DAYS,
        idle_lifetime=env.DAILY_IDLE_DAYS,
        metrics_token=env.DAILY_METRICS_TOKEN,
        archive_url=env.DAILY_ARCHIVE,
        archive_days=env.DAILY_ARCHIVE_DAYS,
        established_days=env.DAILY_ESTABLISHED_DAYS,
        vapid_private_key=env.DAILY_VAPID_PRIVATE_KEY,
        vapid_subject=env.DAILY_VAPID_SUBJECT,
        push_services=env.DAILY_PUSH_SERVICES,
        reminder_lifetime=env.DAILY_REMINDER_DAYS,
        cache_dir=env.DAILY_CACHE,
        table_specs=env.DAILY_TABLES,
        tables_url=env.DAILY_TABLES_URL,
        clock=clock or (frozen_clock(env.DAILY_NOW) if env.DAILY_NOW else system_clock),
        **overrides,
    )
