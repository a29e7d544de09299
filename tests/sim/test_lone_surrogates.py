"""A string holding a lone surrogate (JSON allows `"\\ud800"`) is refused by
the models' length-checked fields with `string_unicode`. Every operation's
body goes through its request model, so such a body gets the model's 400 and
changes nothing, instead of being stored (and crashing every later dump) or
reaching an encoder (a 500)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promolab import Simulator
from promolab.sim.operations import BY_NAME
from promolab.sim.refusals import SimError

DEMO = Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml"
BAD = "a\ud800"

CASES: list[tuple[str, dict[str, Any], str]] = [
    ("publish", {"request": {"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": BAD}},
                 "join_once": True}, ".customer.source_id"),
    ("publish", {"request": {"campaign": {"id": "camp_newsletter"}, "customer": {"id": BAD}}}, ".customer.id"),
    ("publish", {"request": {"campaign": {"name": BAD}, "customer": {"source_id": "zed"}}}, ".campaign.name"),
    ("publish", {"request": {"voucher": BAD, "customer": {"source_id": "zed"}}}, ".voucher"),
    ("purchase_reward", {"program_id": "lprg_coffee_club", "member_id": "lmbr_alice",
                         "request": {"reward_id": BAD}}, ".reward_id"),
    ("add_gift_balance", {"code": "GIFT-ALICE-50", "request": {"amount": 100, "source_id": BAD}}, ".source_id"),
    ("add_gift_balance", {"code": "GIFT-ALICE-50", "request": {"amount": 100, "reason": BAD}}, ".reason"),
    ("validate", {"request": {"customer": {"source_id": BAD}}}, ".customer.source_id"),
    ("validate", {"request": {"customer": {"id": BAD}}}, ".customer.id"),
    ("track_event", {"request": {"event": "review_written", "customer": {"source_id": BAD},
                                 "metadata": {"rating": 1}}}, ".customer.source_id"),
    ("track_event", {"request": {"event": BAD, "customer": {"source_id": "zed"}}}, ".event"),
]


@pytest.mark.parametrize(("op", "args", "field"), CASES, ids=[f"{op}{field}" for op, _, field in CASES])
def test_a_lone_surrogate_gets_the_models_400_and_changes_nothing(op: str, args: dict[str, Any], field: str) -> None:
    sim = Simulator.from_scenario(DEMO)
    before = sim.dump_json()
    with pytest.raises(SimError) as caught:
        sim.apply(BY_NAME[op], **args)
    assert caught.value.status == 400
    assert caught.value.details.startswith(f"Property {field}:")
    assert "unicode" in caught.value.details
    assert sim.dump_json() == before
