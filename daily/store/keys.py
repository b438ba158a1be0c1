"""Every Redis key of the service, built here and nowhere else.

Keys that one Lua script or transaction touches together share a hash tag
(``{...}``), so they land on the same Redis Cluster slot.
tests/store/test_keys.py pins the exact strings.
"""

from __future__ import annotations

PREFIX = "daily"
