"""Fixtures of the tables' machinery: a local S3 store, and hosts of their own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tables import s3


@pytest.fixture
def s3_store(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tables' store (an ``s3://`` URL) in a fresh bucket of a local S3 server (moto)."""
    with s3.bucket(monkeypatch) as url:
        yield url
