"""Draws the app icons (daily/static/icon-192.png, icon-512.png) from the shapes of icon.svg.

Pure Python (zlib): run it after changing icon.svg's design, and commit the PNGs.
    python3 tools/make_icons.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

STATIC = Path(__file__).resolve().parents[1] / "daily" / "static"
BRAND = (0x17, 0x32, 0x4D)
WHITE = (0xFF, 0xFF, 0xFF)


def pixel(x: float, y: float) -> tuple[int, int, int]:
    """The colour at (x, y) in the 64-unit design: a full-bleed brand square (maskable safe:
    the pips sit inside the middle 80 %), three white pips on the diagonal."""
    for cx, cy in ((20, 20), (32, 32), (44, 44)):
        if (x - cx) ** 2 + (y - cy) ** 2 <= 6.5**2:
            return WHITE
    return BRAND


def png(size: int) -> bytes:
    """The icon as a PNG of *size* x *size* pixels, 4x4 supersampled."""
    rows = []
    for j in range(size):
        row = bytearray([0])
        for i in range(size):
            acc = [0, 0, 0]
            for sj in range(4):
                for si in range(4):
                    c = pixel((i + (si + 0.5) / 4) * 64 / size, (j + (sj + 0.5) / 4) * 64 / size)
                    acc = [a + b for a, b in zip(acc, c, strict=True)]
            row += bytes(a // 16 for a in acc)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    for size in (192, 512):
        (STATIC / f"icon-{size}.png").write_bytes(png(size))
