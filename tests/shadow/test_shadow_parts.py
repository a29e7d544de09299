"""The parts of a shadow run, each alone: calls from the catalogue, masks,
id pairing, the field-by-field comparison, money, the cassette."""

from __future__ import annotations

from typing import Any

import pytest

from promolab.models.endpoints import SERVICE, VALIDATE
from promolab.shadow import (
    DEFAULT_MASKS,
    Exchange,
    IdMap,
    Masking,
    SideRecord,
    call_for,
    line_kind,
    parse_mask,
)
from promolab.shadow.diff import compare_answers, learn_ids
from promolab.shadow.money_fields import money_paths
from promolab.sim.operations import BY_NAME

MASKS = Masking(DEFAULT_MASKS)


def test_every_operation_of_the_service_is_a_call_built_from_its_endpoint() -> None:
    """An operation added to the catalogue joins shadow runs: nothing here names one."""
    for endpoint in SERVICE:
        assert line_kind(endpoint.name) == "call"
        args: dict[str, Any] = {p.arg: f"{p.arg}_1" for p in endpoint.path_params}
        args |= {q.arg: True for q in endpoint.query if q.type == "boolean"}
        if endpoint.body_arg is not None:
            args[endpoint.body_arg] = {"anything": 1}
        call = call_for(endpoint.name, args)
        assert call.path == endpoint.url_path(**{p.arg: f"{p.arg}_1" for p in endpoint.path_params})
        assert call.describe()["method"] == endpoint.method
        assert call.body == ({"anything": 1} if endpoint.body_arg else None)
    assert {line_kind(op) for op in ("reset", "restore")} == {"simulator_only"}
    assert line_kind("journal") == "skip" and line_kind("advance") == "clock"
    assert set(BY_NAME) - {e.name for e in SERVICE} == {"reset", "restore", "journal"}


def test_query_parameters_are_sent_as_the_sdks_send_them() -> None:
    call = call_for("validate", {"request": {}, "audience_rules_only": True,
                                 "filters": {"promotion_id": {"conditions": {"$is": "camp_1"}}}})
    assert call.query == (("audienceRulesOnly", "true"), ("filters[promotion_id][conditions][$is]", "camp_1"))


@pytest.mark.parametrize("op, path, masked", [
    ("track_event", "request_id", True),
    ("purchase_reward", "transaction.created_at", True),
    ("delete_reward", "updated_at", True),
    ("validate", "promotions[id=promo_x].tracking_id", True),
    ("publish", "voucher.assets.qr.url", True),
    ("publish", "voucher.code", False),
    ("publish", "voucher.created_at_text", False),
    ("validate", "details", False),
])
def test_the_default_masks(op: str, path: str, masked: bool) -> None:
    assert (MASKS.mask_for(op, path) is not None) == masked


def test_masks_are_overridden_by_label() -> None:
    masking = MASKS.overridden(add=["publish:voucher.code"], remove=["**.updated_at"])
    assert masking.mask_for("publish", "voucher.code") is not None
    assert masking.mask_for("validate", "voucher.code") is None
    assert masking.mask_for("delete_reward", "updated_at") is None
    assert parse_mask("a.b").label() == "a.b" and parse_mask("op:a.b").op == "op"
    with pytest.raises(ValueError, match="names no mask"):
        MASKS.overridden(remove=["nothing"])


def test_ids_are_paired_where_both_sides_create_one() -> None:
    ids = IdMap()
    ids.note_script({"code": "GIFT-1"})
    real = {"id": "pub_r", "voucher": {"code": "NEWS-R", "holder_id": "cust_r"}, "vouchers_id": ["v_r"],
            "gift": {"code": "GIFT-1"}}
    sim = {"id": "pub_s", "voucher": {"code": "NEWS-S", "holder_id": "cust_s"}, "vouchers_id": ["v_s"],
           "gift": {"code": "GIFT-2"}}
    learn_ids("publish", real, sim, ids, MASKS)
    assert ids.pairs() == [("pub_s", "pub_r"), ("NEWS-S", "NEWS-R"), ("cust_s", "cust_r"), ("v_s", "v_r")]
    # GIFT-1 was written in the script: a different answer there is a difference, not a pair
    found = compare_answers("publish", real, sim, ids, MASKS)
    assert [(d.path, d.kind, d.expected, d.got) for d in found] == [("gift.code", "value", "GIFT-1", "GIFT-2")]
    ids.note_answers(real, sim)
    # later lines name the ids each side knows; texts mentioning them compare equal
    assert ids.for_real({"code": "NEWS-S", "n": 1}) == {"code": "NEWS-R", "n": 1}
    assert ids.for_sim(["NEWS-R"]) == ["NEWS-S"]
    assert ids.as_real("/v1/vouchers/NEWS-S/redemptions?page=1") == "/v1/vouchers/NEWS-R/redemptions?page=1"
    learn_ids("publish", {"id": "pub_r"}, {"id": "pub_t"}, ids, MASKS)  # pub_r is known: no new pair
    assert len(ids) == 4


def test_each_kind_of_difference() -> None:
    real = {"a": 1, "b": "x", "c": None, "d": [1, 2], "gone": True, "created_at": "2026-01-01",
            "tiers": [{"id": "t1", "v": 1}, {"id": "t2", "v": 2}, {"id": "t3", "v": 3}]}
    sim = {"a": 2, "b": "x", "c": {"k": 1}, "d": [1], "new": 0, "created_at": "2030-01-01",
           "tiers": [{"id": "t1", "v": 1}, {"id": "t3", "v": 4}]}
    found = compare_answers("validate", real, sim, IdMap(), MASKS)
    assert [(d.path, d.kind) for d in found] == [
        ("a", "value"), ("c", "type"), ("d[1]", "missing"), ("gone", "missing"),
        ("tiers[id=t2]", "missing"), ("tiers[id=t3].v", "value"), ("new", "extra"),
    ]
    # a masked field still has to be there, with the same JSON type
    assert [(d.path, d.kind) for d in compare_answers("x", {"created_at": "t"}, {"created_at": None}, IdMap(), MASKS)] == [
        ("created_at", "type")]
    assert compare_answers("x", {"n": 1}, {"n": 1.0}, IdMap(), MASKS) == []  # both JSON numbers


def test_money_fields_come_from_the_response_models() -> None:
    money = money_paths(VALIDATE)
    assert {"promotions[*].discount_amount", "promotions[*].order.total_amount"} <= money
    assert not [p for p in money if "percent" in p or "quantity" in p]
    found = compare_answers("validate", {"promotions": [{"id": "p", "discount_amount": 100, "hierarchy": 1}]},
                            {"promotions": [{"id": "p", "discount_amount": 150, "hierarchy": 2}]},
                            IdMap(), MASKS, money)
    assert [(d.path, d.money) for d in found] == [("promotions[id=p].discount_amount", True),
                                                  ("promotions[id=p].hierarchy", False)]


def test_an_exchange_reads_back_as_it_was_written() -> None:
    exchange = Exchange(3, "publish", {"request": {"x": "é"}}, SideRecord({"method": "POST"}, 200, {"id": 1}, 1.5, 1),
                        SideRecord(skipped="why"), "2026-03-06T10:00:00.000Z", "a note", "2026-03-06T10:00:00.000Z")
    import json

    again = Exchange.from_json(json.loads(exchange.to_json()))
    assert again == exchange and again.to_json() == exchange.to_json()
    assert again.event().at is not None and again.event().op == "publish"
