"""The validate operation's shortcuts give exactly what their plain definitions give.

- `validation._usual_items`: a one-loop check of the usual cart items, which
  must accept only what `models.ValidationRequest` accepts;
- `promotions.customer_context`: the customer the rules see, built positionally
  (checked against the keyword construction it replaced, on stored, unknown and
  metadata-carrying customers);
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
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from promolab import Simulator, models
from promolab.engine import CustomerContext
from promolab.engine.logic_parser import compile_logic
from promolab.sim.operations.validation import _usual_items, plainly_valid
from promolab.sim.promotions import customer_context, pricing_view


def _model_accepts(items: list[Any]) -> bool:
    try:
        models.ValidationRequest.model_validate({"order": {"items": items}})
    except ValidationError:
        return False
    return True


_ODD_VALUES = [0, -1, 1, 2, 2**63 - 1, 2**63, True, False, 1.0, "1", "", "p", "prod_é", "\ud800", None, [], {}]


@pytest.mark.parametrize("quantity", _ODD_VALUES)
@pytest.mark.parametrize("product_id", _ODD_VALUES)
def test_the_usual_items_check_accepts_only_what_the_model_accepts(product_id: Any, quantity: Any) -> None:
    items = [{"product_id": "prod_a", "quantity": 1}, {"product_id": product_id, "quantity": quantity}]
    if _usual_items(items):
        assert _model_accepts(items), items
        assert plainly_valid({"order": {"items": items}})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["product_id", "quantity", "sku_id", "price", "metadata"]),
            st.sampled_from(_ODD_VALUES),
            max_size=3,
        ),
        max_size=4,
    )
)
def test_the_usual_items_check_is_sound_on_any_items(items: list[dict[str, Any]]) -> None:
    if _usual_items(items):
        assert _model_accepts(items), items


def test_the_usual_items_check_takes_a_shop_cart() -> None:
    items = [{"product_id": "prod_mug", "quantity": 2}, {"quantity": 1, "product_id": "prod_tote"}]
    assert _usual_items(items) and _usual_items([])
    assert not _usual_items([{"product_id": "prod_mug", "quantity": 1, "price": 100}])  # left to the table check
    assert plainly_valid({"order": {"items": [{"product_id": "prod_mug", "quantity": 1, "price": 100}]}})


# --- the customer the rules see ------------------------------------------------------------------
def _plain_context(sim: Simulator, given: dict[str, Any]) -> CustomerContext:
    """The keyword construction `customer_context` used before."""
    record = None
    if given.get("id") is not None:
        record = sim.state.customers.get(given["id"])
    if record is None and given.get("source_id") is not None:
        found = sim.indexes.customer_by_source.get(given["source_id"])
        record = sim.state.customers.get(found) if found else None
    metadata = dict(record.metadata) if record is not None else {}
    metadata.update(given.get("metadata") or {})
    if record is None:
        return CustomerContext(id=given.get("id"), source_id=given.get("source_id"), name=given.get("name"),
                               email=given.get("email"), metadata=metadata)
    segments = pricing_view(sim).segments_of.get(record.id, frozenset())
    return CustomerContext(id=record.id, source_id=record.source_id, name=record.name, email=record.email,
                           metadata=metadata, segment_ids=segments)


@pytest.mark.parametrize("given", [
    {"source_id": "alice"}, {"source_id": "alice", "metadata": {"tier": "gold", "extra": [1]}},
    {"id": "cust_bob"}, {"id": "cust_nobody", "source_id": "dave"}, {"source_id": "guest-9"},
    {"source_id": "guest-9", "id": "cust_x", "name": "N", "email": "e@x", "metadata": {"k": 1}},
    {"name": "only a name"}, {"source_id": "frank", "metadata": {}},
])  # fmt: skip
def test_customer_context_equals_the_plain_construction(sim: Simulator, given: dict[str, Any]) -> None:
    view = pricing_view(sim)
    context, source = customer_context(sim, view, given)
    expected = _plain_context(sim, given)
    assert context == expected
    assert source == (expected.source_id or expected.id)
    assert context is not None
    context.metadata["scribbled"] = True  # type: ignore[index]  # a copy: neither record nor body changes
    assert "scribbled" not in _plain_context(sim, given).metadata
    assert "scribbled" not in (given.get("metadata") or {})


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
