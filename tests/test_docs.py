"""The project's docs: every link to a file of the repository resolves, anchors included."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```.*?^```", flags=re.M | re.S)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
HEADING = re.compile(r"^#{1,6} +(.+?) *$", flags=re.M)


def _prose(text: str) -> str:
    """The page without its code blocks and code spans, where brackets are not links."""
    return CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading.

    >>> slug("Rotating `SECRET_KEY`")
    'rotating-secret_key'
    >>> slug("What belongs in front: a buffering reverse proxy")
    'what-belongs-in-front-a-buffering-reverse-proxy'
    """
    text = heading.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {slug(h) for h in HEADING.findall(FENCE.sub("", page.read_text()))}


def _links(page: Path) -> list[str]:
    found = LINK.findall(_prose(page.read_text()))
    return [a or b for a, b in found]


def _local(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target)  # no scheme: http:, mailto:, ...


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_local_link_resolves(page: Path) -> None:
    links = [t for t in _links(page) if _local(t)]
    broken = []
    for target in links:
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.is_relative_to(ROOT) or not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no such heading")
    assert broken == []


def test_the_readme_links_every_page_of_the_docs() -> None:
    readme = set(_links(ROOT / "README.md"))
    missing = [p.name for p in PAGES[1:] if f"docs/{p.name}" not in readme]
    assert missing == []


def test_the_checker_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n[ok](#top) [gone](missing.md) `[code](x.md)`\n")
    assert _links(page) == ["#top", "missing.md"]
    assert _anchors(page) == {"top"}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_no_page_cites_what_a_clone_lacks(page: Path) -> None:
    text = page.read_text()
    # Spelt in pieces, so that this file does not itself cite the team's folder.
    folder = "/".join(("..", "shared"))
    for gone in (folder, "/work" + folder[2:], "RULES.md", "API.md"):
        assert gone not in text, f"{page.name} cites {gone}"
