"""A route declared once: one registration gives its view, its OpenAPI entry, its cost row and
so its limits.

A view is registered with its row of the cost table and, under ``/api/``, its operation::

    @bp.get("/daily", cost=costs.READ, api=documented(answers.DailyAnswer, access="public"))
    def today() -> Response: ...

:class:`App` keeps each endpoint's :class:`Route` as Flask registers it, and refuses a route
registered without a cost row (:class:`~daily.core.errors.ConfigError`), whoever adds it: a
blueprint, an extension or a test. The rate limits (:mod:`daily.web.limits`) read which
budgets each route spends from its row, the OpenAPI document (:mod:`daily.web.openapi`)
its operation, and docs/operations.md prints the rows (:func:`daily.web.costs.markdown`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from flask import Flask, current_app, request
from pydantic import BaseModel
from pydantic.config import JsonDict

from daily.core.errors import ConfigError
from daily.web import costs
from daily.web.costs import Cost

#: Who may call an operation: anyone (no credentials), anyone with or without a player
#: (``me`` then names them), or a player (bearer token or session cookie).
Access = Literal["public", "either", "player"]


@dataclass(frozen=True, slots=True)
class Operation:
    """What the document says of one view beyond its route and its docstring's first line."""

    answer: type[BaseModel] | None
    status: int = 200
    body: type[BaseModel] | None = None
    errors: tuple[int, ...] = ()
    query: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    path: Mapping[str, JsonDict] = field(default_factory=dict)  # parameter overrides
    access: Access = "player"
    description: str = ""  # of the answer
    errors_answer: bool = False  # the errors answer the answer's model, not the error JSON


def documented(answer: type[BaseModel] | None, **details: Any) -> Operation:
    """The :class:`Operation` of a view, registered with its route (``api=documented(...)``)."""
    return Operation(answer, **details)


_ROUTES = "daily.routes"
#: The endpoint Flask registers for the static folder itself: files, exempt from every limit.
STATIC = "static"


@dataclass(frozen=True, slots=True)
class Route:
    """What one registration declared of an endpoint: its cost row and its OpenAPI operation
    (None: not in the document)."""

    cost: Cost
    operation: Operation | None = None

    @property
    def is_exempt(self) -> bool:
        """Whether no rate limit counts it (health checks, the metrics scrape, files)."""
        return not self.cost.limits

    def spends(self, limit: str) -> bool:
        """Whether the route's row names the limit *limit* among those it may spend."""
        return limit in self.cost.limits


class App(Flask):
    """Flask, keeping the :class:`Route` of each endpoint as it is registered."""

    def add_url_rule(
        self,
        rule: str,
        endpoint: str | None = None,
        view_func: Callable[..., Any] | None = None,
        provide_automatic_options: bool | None = None,
        *,
        cost: Cost | None = None,
        api: Operation | None = None,
        **options: Any,
    ) -> None:
        """Registers *rule* as Flask does, with its *cost* row (required) and *api* entry."""
        name = endpoint or (view_func.__name__ if view_func is not None else "")
        if cost is None and name == STATIC:  # Flask's own static folder
            cost = costs.EXEMPT
        if cost is None:
            raise ConfigError(
                f"the route {rule} ({name}) has no cost row: register it with "
                f"cost=costs.READ or another row of daily/web/costs.py"
            )
        found = self.extensions.setdefault(_ROUTES, {})
        if name in found and found[name] != Route(cost, api):
            raise ConfigError(f"the endpoint {name!r} is registered twice with different rows")
        found[name] = Route(cost, api)
        super().add_url_rule(rule, endpoint, view_func, provide_automatic_options, **options)


def routes_of(app: Flask | None = None) -> Mapping[str, Route]:
    """Every endpoint's :class:`Route` in *app* (the running app if None)."""
    return cast(Mapping[str, Route], (app or current_app).extensions.get(_ROUTES, {}))


def rows(app: Flask | None = None) -> dict[str, Cost]:
    """Every endpoint's cost row in *app*: what docs/operations.md prints."""
    return {endpoint: route.cost for endpoint, route in routes_of(app).items()}


def route_of(endpoint: str, app: Flask | None = None) -> Route:
    """The :class:`Route` of *endpoint*; KeyError names an endpoint that has none."""
    try:
        return routes_of(app)[endpoint]
    except KeyError:
        raise KeyError(f"no route registered for the endpoint {endpoint!r}") from None


def current_route() -> Route | None:
    """The route of the request being served; None when no route matched it (a 404)."""
    endpoint = request.endpoint
    return routes_of().get(endpoint) if endpoint else None
