"""Settings from the environment, and the clock (frozen by ``DAILY_NOW`` outside production)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from daily.errors import DailyError

#: The secret used when none is set, outside production only.
DEV_SECRET = "dev-secret-not-for-production"
ENVIRONMENTS = ("production", "development", "testing")

Clock = Callable[[], datetime]


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
    """Every setting of the service; see the README's configuration table."""

    secret_key: str = DEV_SECRET
    env: str = "development"
    redis_url: str | None = None
    data_dir: Path = Path("data")
    timezone: tzinfo = UTC
    board_retention_days: int = 400
    clock: Clock = field(default=system_clock, compare=False, repr=False)

    @property
    def is_production(self) -> bool:
        """Whether the service runs in production mode."""
        return self.env == "production"

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


def load(environ: Mapping[str, str] | None = None, **overrides: Any) -> Config:
    """Builds the config from *environ* (default ``os.environ``) and *overrides*."""
    env = os.environ if environ is None else environ
    mode = overrides.pop("env", env.get("DAILY_ENV", "development"))
    if mode not in ENVIRONMENTS:
        raise ConfigError(f"DAILY_ENV must be one of {', '.join(ENVIRONMENTS)}, got {mode!r}")
    secret = overrides.pop("secret_key", env.get("SECRET_KEY", ""))
    if mode == "production" and (len(secret) < 32 or secret == DEV_SECRET):
        raise ConfigError("production needs SECRET_KEY set to a random string of 32+ characters")
    clock = overrides.pop("clock", None)
    if clock is None:
        frozen = env.get("DAILY_NOW")
        if frozen and mode == "production":
            raise ConfigError("DAILY_NOW freezes the clock and is refused in production")
        clock = frozen_clock(parse_timestamp(frozen)) if frozen else system_clock
    zone_name = overrides.pop("timezone", env.get("DAILY_TZ", "UTC"))
    try:
        zone = ZoneInfo(zone_name) if isinstance(zone_name, str) else zone_name
    except (ValueError, KeyError):
        raise ConfigError(f"unknown time zone: {zone_name!r}") from None
    retention = overrides.pop("board_retention_days", env.get("DAILY_BOARD_RETENTION_DAYS", 400))
    return Config(
        secret_key=secret or DEV_SECRET,
        env=mode,
        redis_url=overrides.pop("redis_url", env.get("REDIS_URL") or None),
        data_dir=Path(overrides.pop("data_dir", env.get("DAILY_DATA", "data"))),
        timezone=zone,
        board_retention_days=int(retention),
        clock=clock,
        **overrides,
    )
