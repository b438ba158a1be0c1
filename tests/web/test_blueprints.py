"""Each blueprint is defined in the module whose views it holds: a view's route is read
where the view is written, and no view module imports another to register it."""

from __future__ import annotations

from pathlib import Path

from daily import create_app


def test_every_view_is_in_the_module_of_its_blueprint(tmp_path: Path) -> None:
    app = create_app({"env": "testing", "redis_url": "redis://127.0.0.1:1/0",
                      "data_dir": tmp_path})  # fmt: skip
    elsewhere = []
    for rule in app.url_map.iter_rules():
        name, _, _ = rule.endpoint.rpartition(".")
        if not name:  # the app's own (static, the language switch): the app factory's
            continue
        module = app.view_functions[rule.endpoint].__module__
        if module != app.blueprints[name].import_name:
            elsewhere.append(f"{rule.endpoint} ({rule.rule}): {module}")
    assert not elsewhere, elsewhere
    assert len(app.blueprints) >= 10  # every blueprint was looked at
