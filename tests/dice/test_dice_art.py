"""The Christmas dice: the holly sprig never covers a pip, on any face."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

SPRITE = Path(__file__).resolve().parents[2] / "daily" / "static" / "dice.svg"
NS = {"svg": "http://www.w3.org/2000/svg"}
Point = tuple[float, float]


def _symbol(face: int) -> ET.Element:
    symbol = ET.parse(SPRITE).getroot().find(f"svg:symbol[@id='x{face}']", NS)
    assert symbol is not None
    return symbol


def _stars(symbol: ET.Element) -> list[list[Point]]:
    """The pips: star polygons, from their path data."""
    stars = []
    for path in symbol.iterfind(".//svg:path", NS):
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", path.get("d", ""))]
        stars.append(list(zip(numbers[::2], numbers[1::2], strict=True)))
    return stars


def _inside_polygon(p: Point, polygon: list[Point]) -> bool:
    x, y = p
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _in_holly(p: Point, holly: ET.Element) -> bool:
    x, y = p
    for shape in holly:
        cx, cy = float(shape.get("cx", 0)), float(shape.get("cy", 0))
        if shape.tag.endswith("circle"):
            if (x - cx) ** 2 + (y - cy) ** 2 <= float(shape.get("r", 0)) ** 2:
                return True
            continue
        rx, ry = float(shape.get("rx", 0)), float(shape.get("ry", 0))
        found = re.search(r"rotate\((-?[\d.]+)", shape.get("transform", ""))
        angle = math.radians(float(found.group(1))) if found else 0.0
        # Turn the point back by the ellipse's rotation about its centre.
        dx, dy = x - cx, y - cy
        u = dx * math.cos(angle) + dy * math.sin(angle)
        v = -dx * math.sin(angle) + dy * math.cos(angle)
        if (u / rx) ** 2 + (v / ry) ** 2 <= 1:
            return True
    return False


def _overlap(holly: ET.Element, stars: list[list[Point]]) -> list[Point]:
    grid = [(i / 4, j / 4) for i in range(257) for j in range(257)]
    return [p for p in grid if _in_holly(p, holly) and any(_inside_polygon(p, s) for s in stars)]


@pytest.mark.parametrize("face", range(1, 7))
def test_the_holly_covers_no_pip(face: int) -> None:
    symbol = _symbol(face)
    holly = symbol.find("svg:g[@class='holly']", NS)
    assert holly is not None and len(holly) == 3
    stars = _stars(symbol)
    assert len(stars) == face
    assert _overlap(holly, stars) == []


def test_the_check_sees_a_sprig_on_a_pip() -> None:
    # The sprig where it once was, in the lower right corner, touches the six's lower pip.
    old = ET.fromstring(
        '<g><ellipse cx="54" cy="55" rx="5" ry="2.4" transform="rotate(-35 54 55)"/>'
        '<ellipse cx="55" cy="49" rx="2.4" ry="5" transform="rotate(-35 55 49)"/>'
        '<circle cx="51" cy="52" r="2"/></g>'
    )
    assert _overlap(old, _stars(_symbol(6))) != []
