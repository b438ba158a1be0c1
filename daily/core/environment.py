"""How the settings are read from the environment: :class:`Settings`, the pydantic-settings
base of :class:`daily.core.config.Config` (whose fields name the variables), reads
``os.environ`` or a mapping handed in, a blank value counting as unset; a bad value is refused
with its variable's name."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Self

from pydantic import ValidationError
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from daily.core.errors import ConfigError

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


class Settings(BaseSettings):
    """Settings read from the environment: each field names its variable
    (``validation_alias``), its default as the variable would be written (:func:`written`)
    and its meaning (``description``); its type parses the text (:mod:`daily.core.parsed`).
    Values handed in by field name (a test's, ``create_app``'s) win over the environment."""

    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        str_strip_whitespace=True,
        case_sensitive=True,
        validate_default=True,
        validate_by_name=True,
        validate_by_alias=True,
        enable_decoding=False,  # a list is text separated by commas, not JSON
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The values handed in first, then the environment (no .env file, no secrets
        folder)."""
        return init_settings, _Variables(settings_cls)

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None, **values: Any) -> Self:
        """The settings from *environ* (default ``os.environ``), an empty variable counting
        as unset, under the *values* handed in by field name. A bad value raises
        :class:`ConfigError` naming its variable."""
        with _reading(os.environ if environ is None else environ):
            try:
                return cls(**values)
            except ValidationError as e:
                error = e.errors()[0]
                name = _variable(cls, error["loc"])
                if error["type"] == "value_error":  # a parser's, phrased to follow the name
                    raise ConfigError(f"{name} {error['ctx']['error']}") from None
                raise ConfigError(f"{name}: {error['msg']}") from None


def _variable(model: type[BaseSettings], loc: tuple[int | str, ...]) -> str:
    # The variable of the field an error is about (its name where it has none).
    name = str(loc[0]) if loc else "settings"
    info = model.model_fields.get(name)
    alias = info.validation_alias if info else None
    return alias if isinstance(alias, str) else name


@contextmanager
def _reading(environ: Mapping[str, str]) -> Iterator[None]:
    token = _ENVIRON.set(environ)
    try:
        yield
    finally:
        _ENVIRON.reset(token)
