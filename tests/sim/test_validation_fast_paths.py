"""The validate operation's shortcuts, against independent expectations.

(Its request body is `models.ValidationRequest`'s alone:
tests/sim/test_validation_endpoint.py checks the operation's 400s against it.)

- `promotions.customer_context`: the customer the rules see, built positionally
  (the contexts of stored, unknown and metadata-carrying customers written out
  by hand from the demo scenario);
- `logic._all` / `logic._any` with three or more parts: loops instead of
  `all()` / `any()` over a generator;
- `schedule.RunningTiers`: bounds kept in the instant's own fixed-offset zone
  (campaign dates come with pydantic's tzinfo), over simulated weeks.
"""

from __future__ import annotations

import itertools
from datetime import UTC, timedelta
from typing import Any

import pytest

from promolab import Simulator
from promolab.engine import CustomerContext
from promolab.engine.logic_parser import compile_logic
from promolab.sim.promotions import customer_context, pricing_view

ALICE = {"tier": "gold", "region": "EU", "newsletter": True, "orders": 14}

#: What the rules see of a request's customer, from the demo scenario's
#: customers and segments (written out by hand): a stored customer (by id,
#: else by source_id) with the request's metadata laid over its own; an
#: unknown one as sent, in no segment.
CONTEXTS: list[tuple[dict[str, Any], CustomerContext, str | None]] = [
    ({"source_id": "alice"},
     CustomerContext("cust_alice", "alice", "Alice Moreau", "alice@example.com", ALICE,
                     frozenset({"seg_vip", "seg_newsletter"})), "alice"),
    ({"source_id": "alice", "metadata": {"tier": "silver", "extra": [1]}},
     CustomerContext("cust_alice", "alice", "Alice Moreau", "alice@example.com",
                     {**ALICE, "tier": "silver", "extra": [1]}, frozenset({"seg_vip", "seg_newsletter"})), "alice"),
    ({"id": "cust_bob"},
     CustomerContext("cust_bob", "bob", "Bob Okafor", "bob@example.com",
                     {"tier": "silver", "region": "EU", "newsletter": False, "orders": 5}, frozenset()), "bob"),
    ({"id": "cust_nobody", "source_id": "dave"},
     CustomerContext("cust_dave", "dave", "Dave Tanaka", "dave@example.com",
                     {"tier": "gold", "region": "US", "newsletter": False, "orders": 22}, frozenset({"seg_vip"})),
     "dave"),
    ({"source_id": "guest-9"}, CustomerContext(None, "guest-9", None, None, {}), "guest-9"),
    ({"source_id": "guest-9", "id": "cust_x", "name": "N", "email": "e@x", "metadata": {"k": 1}},
     CustomerContext("cust_x", "guest-9", "N", "e@x", {"k": 1}), "guest-9"),
    ({"name": "only a name"}, CustomerContext(None, None, "only a name", None, {}), None),
    ({"source_id": "frank", "metadata": {}},
     CustomerContext("cust_frank", "frank", "Frank Osei", "frank@example.com",
                     {"tier": "silver", "region": "US", "newsletter": True, "orders": 3}, frozenset({"seg_newsletter"})),
     "frank"),
]  # fmt: skip


@pytest.mark.parametrize(("given", "expected", "source"), CONTEXTS)
def test_customer_context_is_the_stored_customer_under_the_request(
    sim: Simulator, given: dict[str, Any], expected: CustomerContext, source: str | None
) -> None:
    view = pricing_view(sim)
    context, tracked = customer_context(sim, view, given)
    assert context == expected
    assert tracked == source
    assert context is not None
    context.metadata["scribbled"] = True  # type: ignore[index]  # a copy: neither record nor body changes
    assert "scribbled" not in customer_context(sim, view, given)[0].metadata  # type: ignore[union-attr]
    assert "scribbled" not in (given.get("metadata") or {})
    if context.id is not None and context.id in sim.state.customers:
        assert "scribbled" not in sim.state.customers[context.id].metadata


def test_no_customer_is_none(sim: Simulator) -> None:
    assert customer_context(sim, pricing_view(sim), None) == (None, None)
    assert customer_context(sim, pricing_view(sim), {}) == (None, None)


# --- rule logic with many parts ------------------------------------------------------------------
@pytest.mark.parametrize("logic", [
    "1 and 2 and 3", "1 or 2 or 3", "1 and 2 and 3 and 4", "(1 or 2 or 3) and 4", "1 or (2 and 3 and 4)",
    "not 1 and 2 and 3", "1 or 2 or not 3 or 4",
])  # fmt: skip
def test_logic_with_many_parts_equals_python(logic: str) -> None:
    for values in itertools.product((False, True), repeat=4):
        leaves = {str(i + 1): (lambda env, v=v: v) for i, v in enumerate(values)}
        expected = eval(logic.replace("1", "a").replace("2", "b").replace("3", "c").replace("4", "d"),
                        {}, dict(zip("abcd", values)))
        assert compile_logic(logic, leaves)(None) is expected, (logic, values)


# --- running tiers over weeks ---------------------------------------------------------------------
def test_running_tiers_over_weeks_follow_every_campaign_check(sim: Simulator) -> None:
    """Weekend-only, happy-hour, dated and undated campaigns (their dates carry
    pydantic's tzinfo, the clock is UTC): at every step the running tiers are
    those whose campaign passes, and the remembered bounds share the clock's tzinfo."""
    view = pricing_view(sim)
    for step in range(400):
        sim.advance(timedelta(minutes=53 if step % 5 else 7))
        now = sim.now
        assert now.tzinfo is UTC
        running = view.running.at(now)
        assert running == tuple(t for t in view.tiers if t.campaign.evaluate(now) is None), now
        memo = view.running._memo
        if memo is not None:
            _, lo, hi, _ = memo
            assert lo is None or lo.tzinfo is UTC
            assert hi is None or hi.tzinfo is UTC
