"""Categories as the service has them, from a scenario file to the answers.

A scenario's top-level `categories:` (id, name, hierarchy, stacking type),
campaigns and tiers in several of them, and the service's worked examples on
categories reproduced to the cent through the simulator: hierarchy priority
(the reference notes' example E), the Never stackable cases (the VIP
incentive whatever its order or hierarchy, and every row of the interaction
matrix), the category stacking limit and the limits per category of the
changelog. The answers show the category objects as the service does.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from promolab import Simulator, models
from promolab.sim import ScenarioError

PERCENT_10 = {"type": "PERCENT", "percent_off": 10}
OVER_100 = {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [10000]}}}, "logic": "1"}


def scenario(categories: list[dict[str, Any]], tiers: dict[str, tuple[list[str], dict[str, Any]]],
             rules: dict[str, Any] | None = None, **tier_extras: dict[str, Any]) -> dict[str, Any]:
    """One PROMOTION campaign per tier (`tiers`: id -> (its campaign's
    categories, its discount)), so that each tier's categories are its campaign's."""
    campaigns = [
        {"id": f"camp_{tier_id}", "name": tier_id, "categories": cats,
         "tiers": [{"id": tier_id, "name": tier_id, "discount": discount, **tier_extras.get(tier_id, {})}]}
        for tier_id, (cats, discount) in tiers.items()
    ]
    document: dict[str, Any] = {"version": 1, "seed": 3, "clock": {"start": "2026-03-02T09:00:00Z"},
                                "categories": categories, "campaigns": campaigns}
    if rules is not None:
        document["project"] = {"stacking_rules": rules}
    return document


def tiers(*ids: str) -> list[dict[str, str]]:
    return [{"object": "promotion_tier", "id": i} for i in ids]


def validate(sim: Simulator, sent: list[dict[str, str]], amount: int = 10000, **kw: Any) -> models.StackedValidationResponse:
    with sim.client() as client:
        return client.validate_stacked(redeemables=sent, order={"amount": amount}, **kw)


def statuses(answer: models.StackedValidationResponse, sent: list[str]) -> list[tuple[str, str, str | None]]:
    """(id, status, skip or failure key) of every redeemable, in the order `sent`."""
    everything = {r.id: r for r in [*answer.redeemables, *answer.skipped_redeemables, *answer.inapplicable_redeemables]}
    out = []
    for rid in sent:
        details = everything[rid].result.details
        out.append((rid, everything[rid].status, details.key if details is not None else None))
    return out


def applied(answer: models.StackedValidationResponse) -> list[tuple[str, int]]:
    """(id, what it took off), in the request's order."""
    return [(r.id, r.order.total_applied_discount_amount or 0) for r in answer.redeemables
            if r.status == "APPLICABLE" and r.order is not None]


# -- example E of the notes: hierarchy priority changes eligibility -------------------------------------------
E_TIERS = {"promo_ten": (["cat_first"], PERCENT_10), "promo_twenty": (["cat_second"], {"type": "PERCENT", "percent_off": 20})}


@pytest.mark.parametrize(("sent", "first_hierarchy", "second_hierarchy", "expected", "total"), [
    # requested order: the 10 % first leaves $94.50, and the 20 % (orders over $100) no longer qualifies
    (["promo_ten", "promo_twenty"], 1, 1, [("promo_ten", 1050)], 9450),
    # hierarchy priority: the 20 % campaign's lower hierarchy puts it first: $21.00 then $8.40
    (["promo_ten", "promo_twenty"], 1, 0, [("promo_ten", 840), ("promo_twenty", 2100)], 7560),
    # ... and the 10 % campaign's lower hierarchy puts it first even when sent second
    (["promo_twenty", "promo_ten"], 0, 1, [("promo_ten", 1050)], 9450),
    (["promo_twenty", "promo_ten"], 3, 2, [("promo_twenty", 2100), ("promo_ten", 840)], 7560),
])
def test_example_e_hierarchy_priority_decides_which_campaign_qualifies(
    sent: list[str], first_hierarchy: int, second_hierarchy: int, expected: list[tuple[str, int]], total: int
) -> None:
    categories = [{"id": "cat_first", "name": "First", "hierarchy": first_hierarchy},
                  {"id": "cat_second", "name": "Second", "hierarchy": second_hierarchy}]
    document = scenario(categories, E_TIERS, {"redeemables_application_mode": "PARTIAL",
                                              "redeemables_sorting_rule": "CATEGORY_HIERARCHY"},
                        promo_twenty={"validation_rules": OVER_100})
    answer = validate(Simulator.from_scenario(document), tiers(*sent), amount=10500)
    assert answer.valid and sorted(applied(answer)) == sorted(expected) and answer.order.total_amount == total
    skipped = [r.id for r in answer.inapplicable_redeemables]
    assert skipped == ([] if len(expected) == 2 else ["promo_twenty"])
    if first_hierarchy == second_hierarchy:  # a tie: the request's order, as under REQUESTED_ORDER
        requested = scenario(categories, E_TIERS, {"redeemables_application_mode": "PARTIAL"},
                             promo_twenty={"validation_rules": OVER_100})
        assert validate(Simulator.from_scenario(requested), tiers(*sent), amount=10500).order.total_amount == total


# -- the Never stackable VIP incentive: hierarchy and order do not matter --------------------------------------
@pytest.mark.parametrize("vip_first", [True, False])
@pytest.mark.parametrize("vip_hierarchy", [0, 7])
@pytest.mark.parametrize("sorting", ["REQUESTED_ORDER", "CATEGORY_HIERARCHY"])
def test_a_never_stackable_incentive_wins_over_common_ones_whatever_its_order_or_hierarchy(
    vip_first: bool, vip_hierarchy: int, sorting: str
) -> None:
    categories = [{"id": "cat_vip", "name": "VIP", "hierarchy": vip_hierarchy, "stacking_rules_type": "EXCLUSIVE"},
                  {"id": "cat_common", "name": "Common", "hierarchy": 3}]
    document = scenario(categories, {"promo_vip": (["cat_vip"], {"type": "PERCENT", "percent_off": 50}),
                                     "promo_common": (["cat_common"], PERCENT_10)},
                        {"redeemables_sorting_rule": sorting})
    sent = ["promo_vip", "promo_common"] if vip_first else ["promo_common", "promo_vip"]
    answer = validate(Simulator.from_scenario(document), tiers(*sent))
    assert answer.valid and applied(answer) == [("promo_vip", 5000)] and answer.order.total_amount == 5000
    assert [(r.id, r.result.details.key) for r in answer.skipped_redeemables] == [
        ("promo_common", "exclusion_rules_not_met")]
    assert [r.id for r in answer.redeemables] == sent  # ALL lists every redeemable, in the request's order


# -- the interaction matrix of the service's stacking rules overview --------------------------------------------
KINDS = {"common": None, "never": "EXCLUSIVE", "always": "JOINT"}
MATRIX: list[tuple[str, str, dict[str, Any], list[tuple[str, str, str | None]], int]] = [
    # (first sent, second sent, rules, (id, status, key), total) -- first: $10 off, second: 20 % off, of $100
    ("common", "common", {}, [("promo_a", "APPLICABLE", None), ("promo_b", "APPLICABLE", None)], 7200),
    ("common", "never", {}, [("promo_a", "SKIPPED", "exclusion_rules_not_met"), ("promo_b", "APPLICABLE", None)], 8000),
    ("never", "common", {}, [("promo_a", "APPLICABLE", None), ("promo_b", "SKIPPED", "exclusion_rules_not_met")], 9000),
    ("common", "always", {}, [("promo_a", "APPLICABLE", None), ("promo_b", "APPLICABLE", None)], 7200),
    # the always stackable one goes last: 20 % of $100, then $10
    ("always", "common", {}, [("promo_a", "APPLICABLE", None), ("promo_b", "APPLICABLE", None)], 7000),
    ("never", "never", {}, [("promo_a", "APPLICABLE", None),
                            ("promo_b", "SKIPPED", "applicable_exclusive_redeemables_limit_exceeded")], 9000),
    ("never", "never", {"applicable_exclusive_redeemables_limit": 2},
     [("promo_a", "APPLICABLE", None), ("promo_b", "APPLICABLE", None)], 7200),
    ("never", "always", {}, [("promo_a", "APPLICABLE", None), ("promo_b", "APPLICABLE", None)], 7200),
    ("always", "never", {}, [("promo_a", "APPLICABLE", None), ("promo_b", "APPLICABLE", None)], 7000),
    ("always", "always", {}, [("promo_a", "APPLICABLE", None), ("promo_b", "APPLICABLE", None)], 7200),
]


@pytest.mark.parametrize(("first", "second", "rules", "expected", "total"), MATRIX,
                         ids=[f"{m[0]}-{m[1]}{'-limit-2' if m[2] else ''}" for m in MATRIX])
def test_the_interaction_matrix_to_the_cent(
    first: str, second: str, rules: dict[str, Any], expected: list[tuple[str, str, str | None]], total: int
) -> None:
    categories = [{"id": "cat_a", "name": "A", "stacking_rules_type": KINDS[first]},
                  {"id": "cat_b", "name": "B", "stacking_rules_type": KINDS[second]}]
    document = scenario(categories, {"promo_a": (["cat_a"], {"type": "AMOUNT", "amount_off": 1000}),
                                     "promo_b": (["cat_b"], {"type": "PERCENT", "percent_off": 20})},
                        {"redeemables_application_mode": "PARTIAL", **rules})
    answer = validate(Simulator.from_scenario(document), tiers("promo_a", "promo_b"))
    assert statuses(answer, ["promo_a", "promo_b"]) == expected and answer.order.total_amount == total


# -- limits per category ----------------------------------------------------------------------------------------
def test_the_category_stacking_limit_keeps_the_first_two_flash_sales_in_application_order() -> None:
    """Three valid flash-sale incentives in one category with limit 2: the
    third in application order is skipped (under hierarchy priority, the one
    sent first is tried last when its own category is higher)."""
    categories = [{"id": "cat_flash", "name": "Flash sale", "hierarchy": 1}]
    flash = {f"promo_flash_{n}": (["cat_flash"], {"type": "AMOUNT", "amount_off": off})
             for n, off in ((1, 300), (2, 500), (3, 700))}
    rules = {"redeemables_application_mode": "PARTIAL", "applicable_redeemables_per_category_limit": 2}
    answer = validate(Simulator.from_scenario(scenario(categories, flash, rules)), tiers(*flash))
    assert applied(answer) == [("promo_flash_1", 300), ("promo_flash_2", 500)] and answer.order.total_amount == 9200
    assert [(r.id, r.result.details.key) for r in answer.skipped_redeemables] == [
        ("promo_flash_3", "applicable_redeemables_per_category_limit_exceeded")]
    # the third, in a second category of hierarchy 0 as well, is tried first under hierarchy priority
    categories.append({"id": "cat_today", "name": "Today only", "hierarchy": 0})
    flash["promo_flash_3"] = (["cat_flash", "cat_today"], flash["promo_flash_3"][1])
    document = scenario(categories, flash, {**rules, "redeemables_sorting_rule": "CATEGORY_HIERARCHY"})
    answer = validate(Simulator.from_scenario(document), tiers(*flash))
    assert applied(answer) == [("promo_flash_1", 300), ("promo_flash_3", 700)] and answer.order.total_amount == 9000
    assert [r.id for r in answer.skipped_redeemables] == ["promo_flash_2"]


def test_limits_per_category_silver_two_gold_one_bronze_the_default() -> None:
    """The changelog's "Limits per category": Silver 2, Gold 1, Bronze falls
    back to the maximum per category (1)."""
    categories = [{"id": f"cat_{c}", "name": c.title()} for c in ("silver", "gold", "bronze")]
    sent = {f"promo_{c}_{n}": ([f"cat_{c}"], {"type": "AMOUNT", "amount_off": 100 * n})
            for c, count in (("silver", 3), ("gold", 2), ("bronze", 2)) for n in range(1, count + 1)}
    rules = {"redeemables_application_mode": "PARTIAL", "applicable_redeemables_limit": 10,
             "applicable_redeemables_category_limits": {"cat_silver": 2, "cat_gold": 1}}
    answer = validate(Simulator.from_scenario(scenario(categories, sent, rules)), tiers(*sent))
    assert applied(answer) == [("promo_silver_1", 100), ("promo_silver_2", 200), ("promo_gold_1", 100),
                               ("promo_bronze_1", 100)]
    assert answer.order.total_amount == 10000 - 500
    assert {r.id: r.result.details.key for r in answer.skipped_redeemables} == dict.fromkeys(
        ["promo_silver_3", "promo_gold_2", "promo_bronze_2"], "applicable_redeemables_per_category_limit_exceeded")


# -- the answers show the categories as the service does --------------------------------------------------------
WIRE_CATEGORIES = [
    {"id": "cat_flash", "name": "Flash", "hierarchy": 0, "stacking_rules_type": "EXCLUSIVE",
     "created_at": "2025-11-30T08:15:00.250Z"},
    {"id": "cat_gift", "name": "Gift cards", "stacking_rules_type": "JOINT"},
    {"id": "cat_coffee", "name": "Coffee", "hierarchy": 4},
]


#: A category's own creation instant (a real project's), kept to the millisecond.
FLASH_CREATED = {"created_at": "2025-11-30T08:15:00.250Z"}


def _wire_sim() -> Simulator:
    document = scenario(WIRE_CATEGORIES, {"promo_flash": (["cat_coffee", "cat_flash"], PERCENT_10),
                                          "promo_plain": ([], {"type": "AMOUNT", "amount_off": 100})})
    document["campaigns"][1]["tiers"][0]["categories"] = ["cat_coffee"]  # the tier's own, its campaign has none
    document["campaigns"].append({"id": "camp_gift", "name": "Gift", "type": "GIFT_VOUCHERS", "gift_amount": 2000,
                                  "category_id": "cat_gift", "vouchers": [{"code": "GIFT-1"}]})
    return Simulator.from_scenario(document)


def _category(category_id: str, hierarchy: int, name: str, kind: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": category_id, "name": name, "hierarchy": hierarchy,
                           "created_at": "2026-03-02T09:00:00.000Z", "object": "category"}
    if kind is not None:
        out["stacking_rules_type"] = kind
    return out


def test_a_stacked_validation_lists_each_redeemables_categories_with_their_stacking_types() -> None:
    sim = _wire_sim()
    sent = [*tiers("promo_plain", "promo_flash"), {"object": "voucher", "id": "GIFT-1"}]
    answer = validate(sim, sent, options={"expand": ["category"]})
    wire = [r.model_dump(mode="json")["categories"] for r in answer.redeemables]
    assert wire == [
        [_category("cat_coffee", 4, "Coffee")],
        [_category("cat_coffee", 4, "Coffee"), {**_category("cat_flash", 0, "Flash", "EXCLUSIVE"), **FLASH_CREATED}],
        [_category("cat_gift", 1, "Gift cards", "JOINT")],
    ]
    assert statuses(answer, ["promo_plain"]) == [("promo_plain", "SKIPPED", "exclusion_rules_not_met")]
    with sim.client() as client:  # the stacking rules decide the type: make Flash common
        (rules,) = client.list_stacking_rules(sim.state.project.id).data
        assert (rules.exclusive_categories, rules.joint_categories) == (["cat_flash"], ["cat_gift"])
        client.update_stacking_rules(sim.state.project.id, rules.id, {"exclusive_categories": []})
    answer = validate(sim, sent)
    assert answer.model_dump(mode="json")["redeemables"][1]["categories"][1] == {**_category("cat_flash", 0, "Flash"),
                                                                                **FLASH_CREATED}
    # both tiers now common, in Coffee: its limit of one lets the first alone through
    assert statuses(answer, ["promo_plain", "promo_flash", "GIFT-1"]) == [
        ("promo_plain", "APPLICABLE", None), ("promo_flash", "SKIPPED", "applicable_redeemables_per_category_limit_exceeded"),
        ("GIFT-1", "APPLICABLE", None)]


def test_validation_and_qualification_expand_categories_and_codes_show_the_first_as_category_id() -> None:
    sim = _wire_sim()
    with sim.client() as client:
        promotions = client.validate_promotions(order={"amount": 10000}, options={"expand": ["category"]}).promotions
        found = client.qualifications(order={"amount": 10000}, options={"expand": ["category"]}).redeemables.data
        plain = client.qualifications(order={"amount": 10000}).redeemables.data
        published = client.publish(voucher="GIFT-1", customer={"source_id": "ann"})
    campaigns = {p.id: p.model_dump(mode="json")["campaign"].get("categories") for p in promotions}
    # a validation shows the campaign's categories (promo_plain's campaign has none; the tier's own are the stack's)
    flash = {**_category("cat_flash", 0, "Flash"), **FLASH_CREATED}
    assert campaigns == {"promo_flash": [_category("cat_coffee", 4, "Coffee"), flash], "promo_plain": None}
    listed = {q.id: q.model_dump(mode="json").get("categories") for q in found}
    assert listed["promo_flash"] == [_category("cat_coffee", 4, "Coffee"), {**flash, "stacking_rules_type": "EXCLUSIVE"}]
    assert listed["promo_plain"] == [_category("cat_coffee", 4, "Coffee")]
    assert all(q.categories is None for q in plain)
    assert (published.voucher.category_id, published.voucher.category) == ("cat_gift", "Gift cards")


def test_categories_survive_a_snapshot_and_a_state_without_them_dumps_as_before() -> None:
    sim = _wire_sim()
    restored = Simulator.restore(sim.snapshot())
    sent = tiers("promo_plain", "promo_flash")
    assert validate(restored, sent).model_dump(mode="json") == validate(sim, sent).model_dump(mode="json")
    bare = Simulator.from_scenario(scenario([], {"promo_plain": ([], PERCENT_10)}))
    dumped = bare.state.dump()
    assert "categories" not in dumped and "categories" not in dumped["campaigns"]["camp_promo_plain"]
    assert "categories" not in dumped["tiers"]["promo_plain"] and bare.state.stacking_rules is None
    # a snapshot of the campaigns' one-category fields of old: null ones restore, a value is refused
    old = bare.snapshot()
    old["state"]["campaigns"]["camp_promo_plain"].update(category_id=None, category=None)
    assert Simulator.restore(old).initial_fingerprint() == bare.initial_fingerprint()
    old["state"]["campaigns"]["camp_promo_plain"]["category_id"] = "cat_old"
    with pytest.raises(ValueError, match="category_id"):
        Simulator.restore(old)


# -- what a scenario may say ------------------------------------------------------------------------------------
BASE = scenario([{"id": "cat_a", "name": "A"}, {"id": "cat_b", "name": "B", "hierarchy": 0}],
                {"promo_x": (["cat_a"], PERCENT_10)})


def _changed(change: Any) -> dict[str, Any]:
    document = copy.deepcopy(BASE)
    change(document)
    return document


def _campaign(document: dict[str, Any], **fields: Any) -> None:
    document["campaigns"][0].pop("categories")
    document["campaigns"][0].update(fields)


REFUSED: list[tuple[str, Any, str]] = [
    ("an unknown category", lambda d: d["campaigns"][0].update(categories=["cat_a", "cat_c"]),
     "campaigns[0].categories[1]: unknown category 'cat_c'; did you mean 'cat_b'?"),
    ("an unknown category_id", lambda d: _campaign(d, category_id="cat_z"),
     "campaigns[0].category_id: unknown category 'cat_z'; did you mean 'cat_b'?"),
    ("both forms", lambda d: d["campaigns"][0].update(category_id="cat_a"),
     "campaigns[0].category_id: give categories or category_id (a one-item categories), not both"),
    ("a category name", lambda d: _campaign(d, category="A"),
     ("campaigns[0].category: a campaign names its categories by id: define the category under the top-level "
      "`categories:` and list its id in `categories: [...]`")),
    ("one category twice", lambda d: d["campaigns"][0].update(categories=["cat_a", "cat_a"]),
     "campaigns[0].categories: names a category more than once"),
    ("a tier's unknown category", lambda d: d["campaigns"][0]["tiers"][0].update(categories=["cat_q"]),
     "campaigns[0].tiers[0].categories[0]: unknown category 'cat_q'; did you mean 'cat_b'?"),
    ("a category defined twice", lambda d: d["categories"].append({"id": "cat_a", "name": "again"}),
     "categories[2].id: duplicate id 'cat_a'"),
    ("a negative hierarchy", lambda d: d["categories"][0].update(hierarchy=-1),
     "categories[0].hierarchy: Input should be greater than or equal to 0 (got -1)"),
    ("an unknown stacking type", lambda d: d["categories"][0].update(stacking_rules_type="NEVER"),
     "categories[0].stacking_rules_type: Input should be 'JOINT' or 'EXCLUSIVE' (got 'NEVER')"),
    ("a type the stacking rules contradict", lambda d: (d["categories"][0].update(stacking_rules_type="JOINT"),
                                                        d.update(project={"stacking_rules": {"exclusive_categories": ["cat_a"]}})),
     "categories[0].stacking_rules_type: JOINT here, but project.stacking_rules.exclusive_categories makes it EXCLUSIVE"),
]


@pytest.mark.parametrize(("case", "change", "message"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_scenario_with_a_wrong_category_is_refused_naming_the_place(case: str, change: Any, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(_changed(change))
    assert str(info.value) == f"<scenario>: {message}", case


def test_category_id_is_a_one_item_categories_and_stacking_types_join_the_written_rules() -> None:
    one = Simulator.from_scenario(_changed(lambda d: _campaign(d, category_id="cat_b")))
    assert one.state.campaigns["camp_promo_x"].categories == ["cat_b"]
    typed = _changed(lambda d: (d["categories"][1].update(stacking_rules_type="EXCLUSIVE"),
                                d.update(project={"stacking_rules": {"exclusive_categories": ["cat_a"],
                                                                     "applicable_redeemables_limit": 3}})))
    rules = Simulator.from_scenario(typed).state.stacking_rules
    assert rules is not None and rules.exclusive_categories == ["cat_a", "cat_b"]
    assert rules.applicable_redeemables_limit == 3 and rules.joint_categories == []
