"""Stacked validation (`client.validate_stacked`, POST /v1/validations) on the demo scenario.

Through the typed client, in process: the request-level refusals (400,
nothing changed), each reason a redeemable is INAPPLICABLE, ALL against
PARTIAL, one redeemable alone against the promotion validation and the
single-tier engine (the differential the issue asks for), categories
(exclusive, joint, limits, CATEGORY_HIERARCHY) and determinism.
The engine's own invariants are in tests/engine/test_stacking_invariants.py.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab import ApiError, Simulator, models
from promolab.engine import (
    CampaignInfo,
    PricingContext,
    TierSpec,
    normalize_order,
    outcome_wire,
    price_normalized,
    price_tier,
)
from promolab.sim import records
from promolab.sim.promotions import customer_context, pricing_view

DEMO = Path(__file__).resolve().parents[2] / "data" / "scenarios" / "demo.yaml"
Mutation = Callable[[Simulator], None]


@functools.cache
def _document() -> dict[str, Any]:
    return yaml.safe_load(DEMO.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def fresh(mutate: Mutation | None = None, **rules: Any) -> Simulator:
    """A demo simulator, its records edited before anything reads them (the
    pricing view is built once per state and would not see later edits),
    with project stacking rules when given."""
    sim = Simulator.from_scenario(copy.deepcopy(_document()))
    if mutate is not None:
        mutate(sim)
    if rules:
        with sim.client() as client:
            client.create_stacking_rules(sim.state.project.id, **rules)
    return sim


def stacked(sim: Simulator, *redeemables: dict[str, Any], **body: Any) -> models.StackedValidationResponse:
    with sim.client() as client:
        return client.validate_stacked(redeemables=list(redeemables), **body)


def tier(tier_id: str) -> dict[str, Any]:
    return {"object": "promotion_tier", "id": tier_id}


def code(voucher_code: str, **extra: Any) -> dict[str, Any]:
    return {"object": "voucher", "id": voucher_code, **extra}


def voucher(sim: Simulator, voucher_code: str) -> Any:
    return sim.state.vouchers[sim.indexes.voucher_by_code[voucher_code]]


def news_codes(sim: Simulator) -> list[str]:
    return sorted(v.code for v in sim.state.vouchers.values() if v.code.startswith("NEWS-"))


def ids_and_statuses(outcomes: list[models.RedeemableOutcome]) -> list[tuple[str, str]]:
    return [(o.id, o.status) for o in outcomes]


def discount_after(outcome: models.RedeemableOutcome) -> int | None:
    return outcome.order.total_discount_amount if outcome.order is not None else None


AMOUNT_10000 = {"amount": 10000}
GRINDER = {"items": [{"product_id": "prod_grinder", "quantity": 1}]}


# -- request-level refusals ---------------------------------------------------------------------------
REQUEST_REFUSALS: list[tuple[str, dict[str, Any], dict[str, Any], str, str]] = [
    # (case, project rules, request body, key, words of the details)
    ("duplicated", {}, {"redeemables": [code("WELCOME-OPEN-1"), tier("promo_welcome_10"), code("WELCOME-OPEN-1")]},
     "duplicated_redeemables", "voucher WELCOME-OPEN-1"),
    ("duplicated-tier", {}, {"redeemables": [tier("promo_welcome_10"), tier("promo_welcome_10")]},
     "duplicated_redeemables", "promotion_tier promo_welcome_10"),
    ("duplicated-unknown-code", {}, {"redeemables": [code("NOPE"), code("NOPE")]}, "duplicated_redeemables", "NOPE"),
    ("over-project-limit", {"redeemables_limit": 2, "applicable_redeemables_limit": 2},
     {"redeemables": [code("WELCOME-OPEN-1"), code("WELCOME-OPEN-2"), tier("promo_welcome_10")]},
     "invalid_payload", "redeemables_limit"),
    ("empty", {}, {"redeemables": []}, "invalid_payload", "Property .redeemables"),
    ("31", {}, {"redeemables": [code(f"NOPE-{i}") for i in range(31)]}, "invalid_payload", "Property .redeemables"),
    ("unknown-object", {}, {"redeemables": [code("WELCOME-OPEN-1"), {"object": "loyalty_card", "id": "x"}]},
     "invalid_payload", "Property .redeemables[1].object"),
    ("bad-session", {}, {"redeemables": [code("WELCOME-OPEN-1")], "session": {"type": "UNLOCK"}},
     "invalid_payload", "Property .session"),
    ("unknown-field", {}, {"redeemables": [code("WELCOME-OPEN-1")], "sesion": {"type": "LOCK"}},
     "invalid_payload", "Property .sesion"),
    ("negative-price", {}, {"redeemables": [code("WELCOME-OPEN-1")],
                            "order": {"items": [{"product_id": "prod_mug", "quantity": 1, "price": -1}]}},
     "invalid_payload", "Property .order.items[0].price"),
    ("negative-amount", {}, {"redeemables": [code("WELCOME-OPEN-1")], "order": {"amount": -5}},
     "invalid_payload", "Property .order.amount"),
]


@pytest.mark.parametrize(("rules", "body", "key", "words"), [c[1:] for c in REQUEST_REFUSALS],
                         ids=[c[0] for c in REQUEST_REFUSALS])
def test_a_request_level_refusal_is_a_400_and_changes_nothing(
    rules: dict[str, Any], body: dict[str, Any], key: str, words: str
) -> None:
    sim = fresh(**rules)
    before = sim.dump_json()
    with sim.client() as client, pytest.raises(ApiError) as caught:
        client.validate_stacked(body)
    assert (caught.value.status, caught.value.error.key) == (400, key)
    assert words in caught.value.error.details
    assert sim.dump_json() == before  # not even the id counter moved


@pytest.mark.parametrize(("rules", "count"), [({}, 30), ({"redeemables_limit": 2, "applicable_redeemables_limit": 2}, 2)])
def test_as_many_redeemables_as_the_limit_are_priced_and_draw_an_id(rules: dict[str, Any], count: int) -> None:
    sim = fresh(**rules)
    before = sim.dump_json()
    answer = stacked(sim, *[code(f"NOPE-{i}") for i in range(count)], order=AMOUNT_10000)
    assert len(answer.redeemables) == count and not answer.valid
    assert answer.id.startswith("valid_") and sim.dump_json() != before  # a validation is a write: its id


def test_the_same_id_as_a_code_and_as_a_tier_is_not_a_duplicate() -> None:
    answer = stacked(fresh(), code("promo_welcome_10"), tier("promo_welcome_10"), order=AMOUNT_10000)
    assert [(o.object, o.status) for o in answer.redeemables] == [("voucher", "INAPPLICABLE"), ("promotion_tier", "SKIPPED")]


def test_one_voucher_named_by_its_code_and_by_its_id_is_a_duplicate() -> None:
    """A code is found by its code or its v_ id: both at once are one
    voucher twice (it would take its $5 twice), refused like any duplicate."""
    sim = fresh()
    before = sim.dump_json()
    with pytest.raises(ApiError) as caught:
        stacked(sim, code("WELCOME-OPEN-1"), code(voucher(sim, "WELCOME-OPEN-1").id), order=AMOUNT_10000)
    assert (caught.value.status, caught.value.error.key) == (400, "duplicated_redeemables")
    assert sim.dump_json() == before


# -- per-redeemable refusals --------------------------------------------------------------------------
def _set(path: Callable[[Simulator], Any], **values: Any) -> Mutation:
    def mutate(sim: Simulator) -> None:
        for name, value in values.items():
            setattr(path(sim), name, value)
    return mutate


def _welcome_open(sim: Simulator) -> Any:
    return voucher(sim, "WELCOME-OPEN-1")


def _no_discount(sim: Simulator) -> None:
    _welcome_open(sim).discount = None
    sim.state.campaigns["camp_welcome_codes"].discount = None


PAST, FUTURE = datetime(2026, 1, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC)
INAPPLICABLE: list[tuple[str, Mutation | None, dict[str, Any], str]] = [
    # (case, edit of the records, redeemable, key of result.error and result.details)
    ("unknown-tier", None, tier("promo_nope"), "not_found"),
    ("unknown-code", None, code("NOPE"), "not_found"),
    ("tier-inactive", _set(lambda s: s.state.tiers["promo_welcome_10"], active=False), tier("promo_welcome_10"),
     "promotion_inactive"),
    ("campaign-paused", None, tier("promo_flash_5"), "promotion_inactive"),
    ("campaign-expired", None, tier("promo_winter_20"), "promotion_not_active_now"),
    ("campaign-off-schedule", None, tier("promo_app_espresso"), "promotion_not_active_now"),
    ("tier-rules", None, tier("promo_beans_15"), "order_rules_violated"),
    ("voucher-disabled", _set(_welcome_open, active=False), code("WELCOME-OPEN-1"), "voucher_disabled"),
    ("code-campaign-disabled", _set(lambda s: s.state.campaigns["camp_welcome_codes"], active=False),
     code("WELCOME-OPEN-1"), "voucher_disabled"),
    ("voucher-not-started", _set(_welcome_open, start_date=FUTURE), code("WELCOME-OPEN-1"), "voucher_not_active"),
    ("voucher-expired", _set(_welcome_open, expiration_date=PAST), code("WELCOME-OPEN-1"), "voucher_expired"),
    ("voucher-exhausted", _set(_welcome_open, redemption_quantity=2, redeemed_quantity=2), code("WELCOME-OPEN-1"),
     "quantity_exceeded"),
    ("gift-over-balance", None, code("GIFT-BOB-25", gift={"credits": 1801}), "gift_amount_exceeded"),
    ("code-without-discount", _no_discount, code("WELCOME-OPEN-1"), "invalid_voucher"),
]


@pytest.mark.parametrize(("mutate", "redeemable", "key"), [c[1:] for c in INAPPLICABLE], ids=[c[0] for c in INAPPLICABLE])
def test_each_reason_a_redeemable_is_inapplicable(mutate: Mutation | None, redeemable: dict[str, Any], key: str) -> None:
    sim = fresh(mutate)
    answer = stacked(sim, redeemable, code("WELCOME-OPEN-2"), order=GRINDER)
    first, second = answer.redeemables
    assert (first.id, first.status, first.result.error.key, first.result.details.key) == (
        redeemable["id"], "INAPPLICABLE", key, key)
    assert first.order is None and first.result.discount is None and first.result.gift is None
    assert (second.status, second.result.details.key) == ("SKIPPED", "preceding_validation_failed")
    assert [o.id for o in answer.inapplicable_redeemables] == [redeemable["id"]]
    assert answer.valid is False and answer.order.total_amount == 8900 and answer.order.total_discount_amount is None


def test_the_edits_that_refuse_leave_the_unedited_redeemables_applicable() -> None:
    """The control of the table above: on the demo as loaded, each edited
    redeemable applies (so it is the edit that refuses it)."""
    answer = stacked(fresh(), tier("promo_welcome_10"), code("WELCOME-OPEN-1"), code("GIFT-BOB-25", gift={"credits": 1800}),
                     order=GRINDER)
    assert [o.status for o in answer.redeemables] == ["APPLICABLE"] * 3
    assert [discount_after(o) for o in answer.redeemables] == [1000, 1500, 3300]
    assert answer.redeemables[2].result.gift.model_dump(mode="json") == {"credits": 1800, "balance": 1800}
    asked = stacked(fresh(), code("GIFT-BOB-25", gift={"credits": 700}), code("GIFT-ALICE-50"), order=GRINDER)
    assert [o.result.gift.model_dump(mode="json") for o in asked.redeemables] == [
        {"credits": 700, "balance": 1800}, {"credits": 5000, "balance": 5000}]  # without credits: the balance
    assert asked.order.total_amount == 8900 - 5700


# -- ALL and PARTIAL ----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["ALL", "PARTIAL"])
def test_all_fails_as_a_whole_and_partial_keeps_what_applies(mode: str) -> None:
    sim = fresh(redeemables_application_mode=mode)
    news = news_codes(sim)[0]
    answer = stacked(sim, code("WELCOME-OPEN-1"), code("NOPE"), code(news), order=AMOUNT_10000)
    assert [o.id for o in answer.inapplicable_redeemables] == ["NOPE"]
    assert answer.stacking_rules.redeemables_application_mode == mode
    if mode == "ALL":
        assert answer.valid is False
        assert ids_and_statuses(answer.redeemables) == [
            ("WELCOME-OPEN-1", "APPLICABLE"), ("NOPE", "INAPPLICABLE"), (news, "SKIPPED")]
        assert [(o.id, o.result.details.key) for o in answer.skipped_redeemables] == [(news, "preceding_validation_failed")]
        final = answer.order.model_dump(mode="json", exclude_none=True)
        assert (final["amount"], final["total_amount"]) == (10000, 10000)
        assert not {k for k in final if "discount" in k}  # the order as sent
    else:
        assert answer.valid is True
        assert ids_and_statuses(answer.redeemables) == [("WELCOME-OPEN-1", "APPLICABLE"), (news, "APPLICABLE")]
        assert answer.skipped_redeemables == []
        assert [discount_after(o) for o in answer.redeemables] == [500, 1450]  # 10 % of the 9500 left
        assert (answer.order.total_discount_amount, answer.order.total_amount) == (1450, 8550)


@pytest.mark.parametrize("mode", ["ALL", "PARTIAL"])
def test_nothing_applicable_is_invalid_in_both_modes(mode: str) -> None:
    answer = stacked(fresh(redeemables_application_mode=mode), code("NOPE"), tier("promo_winter_20"), order=AMOUNT_10000)
    assert answer.valid is False and answer.order.total_amount == 10000
    if mode == "ALL":  # the first inapplicable one ends it
        assert ids_and_statuses(answer.redeemables) == [("NOPE", "INAPPLICABLE"), ("promo_winter_20", "SKIPPED")]
    else:
        assert answer.redeemables == [] and answer.skipped_redeemables == []
        assert [o.id for o in answer.inapplicable_redeemables] == ["NOPE", "promo_winter_20"]


@pytest.mark.parametrize(("gift_first", "statuses", "total"), [
    (False, ["APPLICABLE", "APPLICABLE"], 5500 - 1000 - 1800), (True, ["INAPPLICABLE", "APPLICABLE"], 5500 - 1800)])
def test_a_tiers_rules_read_the_order_amount_the_redeemables_before_it_left(
    gift_first: bool, statuses: list[str], total: int
) -> None:
    """promo_welcome_10 wants order.amount > $50: on a $55 cart it applies
    before Bob's $18 gift card, not after it (the $37 left)."""
    welcome, gift = tier("promo_welcome_10"), code("GIFT-BOB-25")
    answer = stacked(fresh(redeemables_application_mode="PARTIAL"), *([gift, welcome] if gift_first else [welcome, gift]),
                     order={"amount": 5500})
    by_id = {o.id: o for o in answer.redeemables + answer.inapplicable_redeemables}
    assert [by_id["promo_welcome_10"].status, by_id["GIFT-BOB-25"].status] == statuses
    if gift_first:
        assert by_id["promo_welcome_10"].result.details.key == "order_rules_violated"
    assert answer.order.total_amount == total


def test_a_fixed_price_tier_after_another_item_discount_leaves_the_mug_at_its_price() -> None:
    """$3 off the mug line, then Alice's VIP mug at $5: the line ends at $5."""
    answer = stacked(fresh(), tier("promo_mug_3"), tier("promo_vip_mug_5"), customer={"id": "cust_alice"},
                     order={"items": [{"product_id": "prod_mug", "quantity": 1}]})
    assert [o.status for o in answer.redeemables] == ["APPLICABLE", "APPLICABLE"]
    assert [discount_after(o) for o in answer.redeemables] == [300, 700]
    assert answer.order.items[0].subtotal_amount == 500


# -- one redeemable alone: the differential -----------------------------------------------------------
@functools.cache
def _shared_sim() -> Simulator:
    return fresh()


SKUS = ["sku_ethiopia_250", "sku_ethiopia_1000", "sku_colombia_1000"]
PRODUCTS = ["prod_beans_ethiopia", "prod_beans_colombia", "prod_espresso_blend", "prod_mug", "prod_tote", "prod_grinder",
            "prod_kettle", "prod_filters"]
carts = st.lists(
    st.builds(lambda ref, q: {"sku_id" if ref.startswith("sku_") else "product_id": ref, "quantity": q},
              st.sampled_from(PRODUCTS + SKUS), st.integers(1, 5)),
    min_size=1, max_size=4,
).map(lambda items: {"items": items})
customers = st.sampled_from([None, {"id": "cust_alice"}, {"source_id": "bob"}, {"id": "cust_dave"}, {"id": "cust_erin"},
                             {"source_id": "stranger", "metadata": {"tier": "gold"}}])
NON_UNIT_TIERS = [t.id for t in _shared_sim().state.tiers.values() if t.discount["type"] != "UNIT"]
CODES = ["WELCOME-OPEN-1", "REF-ALICE", news_codes(_shared_sim())[0]]


def _json(model: Any) -> Any:
    return model.model_dump(mode="json") if model is not None else None


@settings(max_examples=40, deadline=None)
@given(order=carts, customer=customers)
def test_one_tier_alone_is_what_the_promotion_validation_says(order: dict[str, Any], customer: dict[str, Any] | None) -> None:
    sim = _shared_sim()
    body: dict[str, Any] = {"order": order} | ({"customer": customer} if customer else {})
    with sim.client() as client:
        listed = {p.id: p for p in client.validate_promotions(**body).promotions}
        answers = {tid: client.validate_stacked(redeemables=[tier(tid)], **body) for tid in NON_UNIT_TIERS}
    view = pricing_view(sim)
    context, _ = customer_context(sim, view, customer)
    normalized = normalize_order(view.catalogue, order, context.id if context else None)
    for tid, answer in answers.items():
        (outcome,) = answer.redeemables
        if tid in listed:
            promotion = listed[tid]
            assert (answer.valid, outcome.status) == (True, "APPLICABLE"), tid
            assert _json(outcome.order) == _json(promotion.order) == _json(answer.order), tid
            assert _json(outcome.result.discount) == _json(promotion.discount), tid
            assert (_json(outcome.applicable_to), _json(outcome.inapplicable_to)) == (
                _json(promotion.applicable_to), _json(promotion.inapplicable_to)), tid
        else:
            engine = price_normalized(view.catalogue, view.by_id[tid], normalized, context, PricingContext(sim.now))
            assert not engine.valid, tid
            assert (answer.valid, outcome.status, outcome.result.details.key) == (False, "INAPPLICABLE", engine.reason_key), tid
            assert (answer.order.total_amount, answer.order.total_discount_amount) == (normalized.amount, None), tid


@settings(max_examples=40, deadline=None)
@given(order=carts, customer=customers)
def test_one_code_alone_is_its_discount_priced_as_a_tier(order: dict[str, Any], customer: dict[str, Any] | None) -> None:
    sim = _shared_sim()
    body: dict[str, Any] = {"order": order} | ({"customer": customer} if customer else {})
    view = pricing_view(sim)
    context, _ = customer_context(sim, view, customer)
    for voucher_code in CODES:
        record = voucher(sim, voucher_code)
        as_tier = TierSpec(id=voucher_code, campaign=CampaignInfo(id=record.campaign_id), discount=record.discount)
        engine = price_tier(view.catalogue, as_tier, order, context, PricingContext(sim.now))
        answer = stacked(sim, code(voucher_code), **body)
        (outcome,) = answer.redeemables
        assert engine.valid and (answer.valid, outcome.status) == (True, "APPLICABLE"), voucher_code
        expected = models.Order.model_validate(outcome_wire(engine).order).model_dump(mode="json")
        assert _json(outcome.order) == expected == _json(answer.order), voucher_code
        assert _json(outcome.result.discount) == record.discount, voucher_code


# -- categories ----------------------------------------------------------------------------------------
def categorised(**by_campaign: str) -> Mutation:
    """Put campaigns in a category each, of hierarchy 0 (before the default 1)."""
    def mutate(sim: Simulator) -> None:
        for campaign_id, category_id in by_campaign.items():
            sim.state.categories[category_id] = records.Category(id=category_id, name=category_id, hierarchy=0)
            sim.state.campaigns[campaign_id].categories = [category_id]
    return mutate


@pytest.mark.parametrize(("sorting", "after"), [("REQUESTED_ORDER", [500, 1450]), ("CATEGORY_HIERARCHY", [1500, 1000])])
def test_category_hierarchy_applies_a_categorised_code_before_one_without(sorting: str, after: list[int]) -> None:
    """WELCOME-OPEN-1 ($5, no category: the default hierarchy 1) sent before a
    NEWS code (10 %, category of hierarchy 0): requested order takes $5 then
    10 % of $95; the hierarchy takes 10 % of $100 first, then $5."""
    sim = fresh(categorised(camp_newsletter="cat_news"), redeemables_sorting_rule=sorting)
    news = news_codes(sim)[0]
    answer = stacked(sim, code("WELCOME-OPEN-1"), code(news), order=AMOUNT_10000)
    assert ids_and_statuses(answer.redeemables) == [("WELCOME-OPEN-1", "APPLICABLE"), (news, "APPLICABLE")]  # request order
    assert [discount_after(o) for o in answer.redeemables] == after
    assert answer.order.total_amount == 10000 - max(after)
    assert [c.id for c in answer.redeemables[1].categories] == ["cat_news"] and answer.redeemables[0].categories == []


def test_an_exclusive_code_sent_last_applies_first_skips_the_common_and_the_joint_still_applies_last() -> None:
    sim = fresh(categorised(camp_welcome_codes="cat_flash", camp_gift="cat_gift", camp_newsletter="cat_news"),
                exclusive_categories=["cat_flash"], joint_categories=["cat_gift"])
    news = news_codes(sim)[0]
    answer = stacked(sim, code("GIFT-BOB-25"), code(news), code("WELCOME-OPEN-1"), order=AMOUNT_10000)
    assert answer.valid is True
    assert ids_and_statuses(answer.redeemables) == [("GIFT-BOB-25", "APPLICABLE"), (news, "SKIPPED"),
                                                    ("WELCOME-OPEN-1", "APPLICABLE")]
    assert [(o.id, o.result.details.key) for o in answer.skipped_redeemables] == [(news, "exclusion_rules_not_met")]
    assert [discount_after(o) for o in answer.redeemables] == [2300, None, 500]  # exclusive $5 first, the gift's $18 last
    assert answer.order.total_amount == 7700


LIMITS: list[tuple[str, dict[str, Any], dict[str, Any], list[tuple[int, str]], int]] = [
    # (case, campaign categories, rules, SKIPPED (position, key), total)
    ("per-category", {"camp_newsletter": "cat_news"}, {},
     [(1, "applicable_redeemables_per_category_limit_exceeded")], 8500),
    ("per-category-override", {"camp_newsletter": "cat_news"}, {"applicable_redeemables_category_limits": {"cat_news": 2}},
     [], 7600),
    ("no-per-category-without-categories", {}, {}, [], 7600),
    ("exclusive", {"camp_newsletter": "cat_news"}, {"exclusive_categories": ["cat_news"]},
     [(1, "applicable_exclusive_redeemables_limit_exceeded"), (2, "exclusion_rules_not_met")], 9000),
    ("total", {}, {"applicable_redeemables_limit": 2}, [(2, "applicable_redeemables_limit_exceeded")], 8100),
]


@pytest.mark.parametrize(("categories", "rules", "skipped", "total"), [c[1:] for c in LIMITS], ids=[c[0] for c in LIMITS])
def test_a_limit_reached_skips_the_next_ones(
    categories: dict[str, str], rules: dict[str, Any], skipped: list[tuple[int, str]], total: int
) -> None:
    """Two NEWS codes (10 % each) then WELCOME-OPEN-1 ($5), on $100."""
    sim = fresh(categorised(**categories), **rules)
    first, second = news_codes(sim)[:2]
    answer = stacked(sim, code(first), code(second), code("WELCOME-OPEN-1"), order=AMOUNT_10000)
    assert [(k, o.result.details.key) for k, o in enumerate(answer.redeemables) if o.status == "SKIPPED"] == skipped
    assert [o.id for o in answer.skipped_redeemables] == [answer.redeemables[k].id for k, _ in skipped]
    assert answer.valid is True and answer.order.total_amount == total


# -- determinism ---------------------------------------------------------------------------------------
def _script(sim: Simulator) -> list[str]:
    out = []
    news = news_codes(sim)
    with sim.client() as client:
        for redeemables, body in [
            ([tier("promo_welcome_10"), code("WELCOME-ALICE"), code("GIFT-ALICE-50", gift={"credits": 700})],
             {"order": GRINDER, "customer": {"id": "cust_alice"}}),
            ([code(news[0]), tier("promo_beans_15"), code("NOPE")],
             {"order": {"items": [{"sku_id": "sku_ethiopia_1000", "quantity": 2}]}, "customer": {"source_id": "bob"}}),
            ([code(news[1]), code(news[1])], {"order": AMOUNT_10000}),
            ([tier("promo_mug_3"), tier("promo_merch_split")], {"order": {"items": [{"product_id": "prod_mug", "quantity": 3}]}}),
        ]:
            try:
                out.append(client.validate_stacked(redeemables=redeemables, **body).model_dump_json())
            except ApiError as exc:
                out.append(f"{exc.status} {exc.error.model_dump_json()}")
    return out + [sim.dump_json()]


def test_the_same_calls_on_two_simulators_give_the_same_bytes() -> None:
    first, second = _script(fresh()), _script(fresh())
    assert first == second
    ids = [models.StackedValidationResponse.model_validate_json(a).id for a in first[:-1] if a.startswith("{")]
    assert len(ids) == len(set(ids)) == 3  # each validation its own id; the refusal none
