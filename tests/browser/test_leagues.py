"""A league in two browsers: made on a phone, joined from its invite link on a desktop after
playing the day's daily (on the board at once), its day board and week table right across
three days of a week (a frozen clock per day); the invite's Copy and Share buttons; and
axe-core clean on its pages."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import AXE_JS, DESKTOP, PHONE, SERIOUS, play_game, set_name

MONDAY = datetime(2026, 11, 30, 12, tzinfo=UTC)


def _board(page: Any, caption: str) -> list[tuple[str, str, str]]:
    """The rows of the board whose caption starts with *caption*: (rank, name, score)."""
    table = page.locator("table.board", has=page.locator(f"caption:text-matches('^{caption}')"))
    return [
        (row.locator(".rank").inner_text(), row.locator(".name").inner_text(),
         row.locator(".score").inner_text())
        for row in table.locator("tbody tr").all()
    ]  # fmt: skip


def test_a_league_made_joined_and_played_across_days(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=MONDAY)
    ana, bo = new_context(viewport=PHONE), new_context(viewport=DESKTOP)
    set_name(ana, base, "Ana")
    set_name(bo, base, "Bo")
    page = ana.new_page()
    page.goto(base + "/leagues")
    page.get_by_label("League name").fill("Family")
    page.get_by_role("button", name="Start the league").click()
    invite = page.locator("input.invite").input_value()
    totals: dict[str, list[int]] = {
        "Ana": [],
        "Bo": [play_game(bo, base, {"mode": "daily"}, True)["total"]],
    }
    other = bo.new_page()
    other.goto(invite)
    shoot(other, "league-invite-1280")
    other.get_by_role("button", name="Join the league").click()
    assert other.get_by_role("heading", name="Invite friends").is_visible()
    # Bo played Monday's daily before he joined: it is on the league's board at once.
    assert [(r[1], int(r[2])) for r in _board(other, "November 30, 2026")] == [
        ("Bo", totals["Bo"][0])
    ]
    for n in range(3):  # Monday to Wednesday; Bo skips Tuesday
        day = serve(now=MONDAY + timedelta(days=n))  # cookies are per host, not port
        totals["Ana"].append(play_game(ana, day, {"mode": "daily"})["total"])
        if n == 2:
            totals["Bo"].append(play_game(bo, day, {"mode": "daily"}, last=True)["total"])
    page.goto(day + invite.removeprefix(base))
    today = sorted(((totals[p][-1], p) for p in totals), reverse=True)
    assert [(r[1], int(r[2])) for r in _board(page, "December 2, 2026")] == [
        (p, t) for t, p in today
    ]
    week = sorted(((sum(totals[p]), p) for p in totals), reverse=True)
    assert [(r[1], int(r[2])) for r in _board(page, "Week of")] == [(p, t) for t, p in week]
    shoot(page, "league-390")
    other.goto(day + invite.removeprefix(base))
    shoot(other, "league-1280")
    assert [r[1] for r in _board(other, "Week of")] == [p for _, p in week]


def test_the_invite_link_is_copied_or_handed_to_the_share_sheet(
    serve: Callable[..., str], new_context: Callable[..., Any]
) -> None:
    base = serve(now=MONDAY)
    desktop = new_context(viewport=DESKTOP)  # no share sheet: Copy only
    desktop.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    made = desktop.request.post(f"{base}/api/v1/leagues", data={"name": "Family"}).json()
    page = desktop.new_page()
    page.goto(f"{base}/leagues/{made['id']}")
    assert page.get_by_role("button", name="Share", exact=True).is_hidden()
    page.get_by_role("button", name="Copy link").click()
    expect(page.get_by_role("status").filter(has_text="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == made["invite"]
    phone = new_context(viewport=PHONE)  # a share sheet that records what it was handed
    record = "async (data) => { window.shared = data; }"
    phone.add_init_script(f"Object.defineProperty(navigator, 'share', {{value: {record}}})")
    set_name(phone, base, "Ana")
    mine = phone.request.post(f"{base}/api/v1/leagues", data={"name": "Kin"}).json()
    sharing = phone.new_page()
    sharing.goto(f"{base}/leagues/{mine['id']}")
    sharing.get_by_role("button", name="Share", exact=True).click()
    expect(sharing.get_by_role("status").filter(has_text="Shared")).to_be_visible()
    shared = sharing.evaluate("window.shared")
    assert shared["url"] == mine["invite"] and shared["title"] == "Kin"
    assert "Kin" in shared["text"]


def test_league_pages_pass_axe(serve: Callable[..., str], new_context: Callable[..., Any]) -> None:
    if not AXE_JS.exists():
        pytest.skip(f"{AXE_JS} is missing (.ci/run installs axe-core from npm)")
    base = serve(now=MONDAY)
    found = {}
    for scheme in ("light", "dark"):
        context = new_context(viewport=PHONE, color_scheme=scheme, bypass_csp=True)
        set_name(context, base, "Ana")
        made = context.request.post(f"{base}/api/v1/leagues", data={"name": "Family"}).json()
        stranger = new_context(viewport=PHONE, color_scheme=scheme, bypass_csp=True).new_page()
        page = context.new_page()
        invite = made["invite"].removeprefix(base)
        # The member's page, the visitor's with the link, and a link that no longer works.
        for where, path in [(page, "/leagues"), (page, f"/leagues/{made['id']}"),
                            (stranger, invite), (stranger, f"/leagues/{made['id']}")]:  # fmt: skip
            where.goto(base + path)
            where.add_script_tag(path=str(Path(AXE_JS)))
            result = where.evaluate(SERIOUS)
            if result:
                found[f"{scheme} {path}"] = result
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())


def test_a_removed_member_stays_out_until_the_owner_readmits_him(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=MONDAY)
    ana, bo = new_context(viewport=PHONE), new_context(viewport=PHONE)
    set_name(ana, base, "Ana")
    set_name(bo, base, "Bo")
    made = ana.request.post(f"{base}/api/v1/leagues", data={"name": "Family"}).json()
    mine, his = ana.new_page(), bo.new_page()
    his.goto(made["invite"])
    his.get_by_role("button", name="Join the league").click()
    mine.goto(f"{base}/leagues/{made['id']}")
    mine.get_by_role("button", name="Remove Bo").click()
    removed = mine.get_by_role("list", name="Removed members")
    assert removed.get_by_text("Bo", exact=True).is_visible()
    readmit = mine.get_by_role("button", name="Readmit Bo")
    assert readmit.is_visible() and readmit.bounding_box()["width"] <= PHONE["width"]
    assert mine.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(mine, "league-removed-390")
    his.goto(mine.locator("input.invite").input_value())  # the link of now
    assert his.get_by_text("The league's owner removed you.").is_visible()
    assert his.get_by_role("button", name="Join the league").count() == 0
    shoot(his, "league-removed-you-390")
    readmit.click()
    assert mine.get_by_role("list", name="Removed members").count() == 0
    his.reload()
    his.get_by_role("button", name="Join the league").click()
    assert his.get_by_role("button", name="Leave the league").is_visible()
