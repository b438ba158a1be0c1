"""The service's version: in every answer's header, the scripts' URLs and the OpenAPI document.

It lives in the core, not the package root, so that the web layer reads it without an
import back up to ``daily/__init__.py`` (whose ``create_app`` imports the web layer).
"""

#: The version, as pyproject.toml declares it (tests/test_project.py checks they agree).
VERSION = "0.1.0"
