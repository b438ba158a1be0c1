"""Settings from the environment, and the clock (frozen by ``DAILY_NOW`` outside production)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from daily.core.errors import DailyError

#: The secret used when none is set, outside production only.
DEV_SECRET = "dev-secret-not-for-production"
ENVIRONMENTS = ("production", "development", "testing")
#: The rate limits (daily.web.limits) and the variables that set them, e.g. ``30 per hour``.
LIMIT_VARS = {
    "players": "DAILY_LIMIT_PLAYERS",
    "moves": "DAILY_LIMIT_MOVES",
    "pages": "DAILY_LIMIT_PAGES",
    "dailies": "DAILY_LIMIT_DAILIES",
    "deletes": "DAILY_LIMIT_DELETES",
}

Clock = Callable[[], datetime]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class ConfigError(DailyError):
    """A setting is missing or invalid; the app refuses to start."""


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


def load(environ: Mapping[str, str] | None = None, **overrides: Any) -> Config:
    """Builds the config from *environ* (default ``os.environ``) and *overrides*."""
    env = os.environ if environ is None else environ
    mode = overrides.pop("env", env.get("DAILY_ENV", "development"))
    if mode not in ENVIRONMENTS:
        raise ConfigError(f"DAILY_ENV must be one of {', '.join(ENVIRONMENTS)}, got {mode!r}")
    secrets = _secrets(mode, overrides.pop("secret_key", env.get("SECRET_KEY", "")))
    clock = overrides.pop("clock", None) or _clock(mode, env.get("DAILY_NOW"))
    zone = _zone(overrides.pop("timezone", env.get("DAILY_TZ", "UTC")))
    retention = overrides.pop("board_retention_days", env.get("DAILY_BOARD_RETENTION_DAYS", 400))
    limits = {name: env[var] for name, var in LIMIT_VARS.items() if env.get(var)}
    limits.update(overrides.pop("rate_limits", {}))
    proxies = overrides.pop("trusted_proxies", env.get("DAILY_TRUSTED_PROXIES", ""))
    code_days = overrides.pop("code_lifetime", env.get("DAILY_CODE_DAYS", 7))
    idle_days = overrides.pop("idle_lifetime", env.get("DAILY_IDLE_DAYS", 30))
    lifetime = _days(code_days, "DAILY_CODE_DAYS")
    archive_days = overrides.pop("archive_days", env.get("DAILY_ARCHIVE_DAYS", 30))
    idle = _days(idle_days, "DAILY_IDLE_DAYS")
    return Config(
        secret_key=secrets[-1] if secrets else DEV_SECRET,
        secret_keys=secrets,
        env=mode,
        redis_url=overrides.pop("redis_url", env.get("REDIS_URL") or None),
        data_dir=Path(overrides.pop("data_dir", env.get("DAILY_DATA", "data"))),
        timezone=zone,
        board_retention_days=_whole_days(retention, "DAILY_BOARD_RETENTION_DAYS"),
        rate_limits=limits,
        trusted_proxies=parse_proxies(proxies),
        code_lifetime=lifetime,
        idle_lifetime=idle,
        metrics_token=overrides.pop("metrics_token", env.get("DAILY_METRICS_TOKEN") or None),
        archive_url=overrides.pop("archive_url", env.get("DAILY_ARCHIVE") or None),
        archive_days=_whole_days(archive_days, "DAILY_ARCHIVE_DAYS"),
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
    daily.core.config.ConfigError: DAILY_TRUSTED_PROXIES names the proxies by address or CIDR ...
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
