"""Helpers shared by the replay tests (imported by name: tests/replay is on sys.path)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from promolab.sim.operations import BY_NAME

START = "2026-03-06T10:00:00.000Z"
PROGRAM = "lprg_coffee_club"


def require_ops(*names: str) -> None:
    """Skip the calling test while an operation is not implemented yet."""
    missing = [name for name in names if name not in BY_NAME]
    if missing:
        pytest.skip(f"operations not implemented yet: {', '.join(missing)}")


def line(op: str, args: dict[str, Any] | None = None, at: str | None = None, **extra: Any) -> str:
    entry: dict[str, Any] = {}
    if at is not None:
        entry["at"] = at
    entry["op"] = op
    entry["args"] = args or {}
    entry.update(extra)
    return json.dumps(entry)


def card_balances(sim: Any) -> dict[str, int]:
    return {c.id: c.balance for c in sim.state.cards.values()}


def gift_balances(sim: Any) -> dict[str, int]:
    return {v.code: v.gift.balance for v in sim.state.vouchers.values() if v.gift is not None}
