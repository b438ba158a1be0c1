"""Builds the translation catalogues (``.po`` to ``.mo``) as part of every install.

All metadata lives in pyproject.toml; this file only wraps ``build_py``, which both
a wheel build and ``pip install -e .`` run, so the site never compiles at run time.
A catalogue with an error stops the build; fuzzy entries are left out (and the
tests fail on them), so a guess never reaches a player.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TRANSLATIONS = Path(__file__).resolve().parent / "daily" / "translations"


def compile_catalogues(root: Path = TRANSLATIONS) -> list[Path]:
    """Writes ``messages.mo`` beside every ``messages.po`` under *root*; returns them."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    for po in sorted(root.glob("*/LC_MESSAGES/messages.po")):
        with po.open("rb") as source:
            catalog = read_po(source, locale=po.parent.parent.name)
        errors = [(m.id, e) for m, es in catalog.check() for e in es]
        if errors:
            raise SystemExit(f"{po}: {errors[0][0]!r}: {errors[0][1]}")
        mo = po.with_suffix(".mo")
        with mo.open("wb") as target:
            write_mo(target, catalog, use_fuzzy=False)
        written.append(mo)
    return written


class BuildPyWithCatalogues(build_py):
    """``build_py`` that first compiles the catalogues, so they ship as package data."""

    def run(self) -> None:
        compile_catalogues()
        super().run()


setup(cmdclass={"build_py": BuildPyWithCatalogues})
