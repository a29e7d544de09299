"""Every answer is built afresh: a caller may change what it got.

Results are mutable pydantic models (and the validation answer a dict), and
notebooks do change them: take the customer of an answer, edit its metadata,
send it back. Nothing of an answer may therefore be shared with a later
answer or with the state: changing every part of one answer, in place, must
leave the next answer to the same request and the state dump as they would
have been. (Speed work once reused rendered customers and vouchers between
answers; this is the test that says why it must not.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from promolab import Simulator
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.operations.publishing import PUBLISH
from promolab.sim.operations.purchases import PURCHASE_REWARD
from promolab.sim.operations.validation import VALIDATE

DEMO = Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml"


@pytest.fixture(scope="module")
def demo_snapshot() -> dict[str, Any]:
    return Simulator.from_scenario(DEMO).snapshot()


def _scribble(value: Any) -> None:
    """Change every mutable part of an answer in place: model fields, dicts, lists."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            part = getattr(value, name)
            if isinstance(part, BaseModel | dict | list):
                _scribble(part)
            elif isinstance(part, str):
                setattr(value, name, part + "~")
    elif isinstance(value, dict):
        for key in list(value):
            if isinstance(value[key], BaseModel | dict | list):
                _scribble(value[key])
        value["scribbled"] = True
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, BaseModel | dict | list):
                _scribble(item)
        value.append("scribbled")


def _wire(value: Any) -> str:
    return value.model_dump_json() if isinstance(value, BaseModel) else repr(value)


#: name -> the same request, made twice in a row (the second answer is compared)
CALLS: dict[str, Callable[[Simulator], Any]] = {
    "track_event (member)": lambda sim: sim.apply(TRACK_EVENT, request={
        "event": "review_written", "customer": {"source_id": "alice"}, "metadata": {"rating": 5}}),
    "track_event (order, credits)": lambda sim: sim.apply(TRACK_EVENT, request={
        "event": "order_placed", "customer": {"source_id": "bob"}, "metadata": {"amount": 2500}}),
    "publish (join_once repeat)": lambda sim: sim.apply(PUBLISH, request={
        "campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "carol"}}, join_once=True),
    "purchase_reward": lambda sim: sim.apply(PURCHASE_REWARD, program_id="lprg_coffee_club", member_id="lmbr_alice",
                                             request={"reward_id": "lrew_coupon"}),
    "add_gift_balance": lambda sim: sim.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": 500}),
    "validate": lambda sim: sim.apply(VALIDATE, request={
        "customer": {"source_id": "alice"}, "order": {"items": [{"product_id": "prod_mug", "quantity": 2}]}}).wire,
}


@pytest.mark.parametrize("name", list(CALLS))
def test_changing_an_answer_changes_no_later_answer_nor_the_state(demo_snapshot: dict[str, Any], name: str) -> None:
    call = CALLS[name]
    untouched, scribbled = Simulator.restore(demo_snapshot), Simulator.restore(demo_snapshot)
    call(untouched)  # the same history on both
    first = call(scribbled)
    _scribble(first)
    assert _wire(call(scribbled)) == _wire(call(untouched))
    assert scribbled.dump_json() == untouched.dump_json()
