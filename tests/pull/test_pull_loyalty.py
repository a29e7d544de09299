"""Serve -> pull -> load for loyalty: the pulled simulator answers the loyalty reads as the original does,
earns and spends points as it does, and the report says what a v1 read could not carry."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.http.transport import SimulatorTransport
from promolab.pull import pull, report_path
from pull_support import SCENARIOS, Hostile, Rewrite, pulled_back, target_of

#: Drawn from the simulator's seed (a card's QR and barcode), which no read shows: compared aside.
_DRAWN = ("assets",)


def _undrawn(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _undrawn(v) for k, v in value.items() if k not in _DRAWN}
    if isinstance(value, list):
        return [_undrawn(v) for v in value]
    return value


def _loyalty_answers(sim: Simulator) -> dict[str, Any]:
    """Every loyalty read answer, as JSON (a card's drawn assets aside)."""
    with sim.client() as client:
        campaigns = client.list_loyalty_programs(limit=100)
        seen: dict[str, Any] = {"campaigns": campaigns.model_dump(mode="json"),
                                "rewards": client.list_rewards(limit=100).model_dump(mode="json")}
        for campaign in campaigns.campaigns:
            cid = campaign.id
            seen[cid] = client.get_loyalty_program(cid).model_dump(mode="json")
            seen[f"{cid} tiers"] = client.list_loyalty_tiers(cid).model_dump(mode="json")
            seen[f"{cid} rules"] = client.list_earning_rules(cid, limit=100).model_dump(mode="json")
            seen[f"{cid} rewards"] = client.list_reward_assignments(cid, limit=100).model_dump(mode="json")
            seen[f"{cid} members"] = client.list_members(cid, limit=100).model_dump(mode="json")
        for reward in client.list_rewards(limit=100).data:
            seen[f"reward {reward.id}"] = client.get_reward(reward.id).model_dump(mode="json")
    return _undrawn(seen)


def _rows(out: Path) -> list[tuple[str, str, str]]:
    with report_path(out).open(encoding="utf-8", newline="") as report:
        return [(row[0], row[1], row[2]) for row in list(csv.reader(report))[1:]]


@pytest.fixture(scope="module")
def demo_pulled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo, pulled once for the module's tests (they only read the file)."""
    out = tmp_path_factory.mktemp("loyalty") / "demo.yaml"
    pull(target_of(Simulator.from_scenario(SCENARIOS / "demo.yaml")), out)
    return out


@pytest.mark.parametrize("name", ["demo", "march_budgets"])
def test_a_pulled_scenario_answers_the_loyalty_reads_as_the_original(name: str, tmp_path: Path) -> None:
    original = Simulator.from_scenario(SCENARIOS / f"{name}.yaml")
    assert _loyalty_answers(pulled_back(original, tmp_path / "pulled.yaml")) == _loyalty_answers(original)


def _card_of(sim: Simulator, card_id: str) -> tuple[str, str]:
    """(program id, member id) of a card: drawn in a pulled scenario, so looked up."""
    card = sim.state.cards[card_id]
    return card.program_id, card.member_id


def _after(sim: Simulator, act: Callable[[Simulator], None]) -> dict[str, Any]:
    act(sim)
    sim.advance(3600)  # a reward purchase settles on the clock
    return _loyalty_answers(sim)


def _review(sim: Simulator) -> None:
    with sim.client() as client:
        client.track_event(event="review_written", customer={"source_id": "alice"}, metadata={"rating": 5})
        client.track_event(event="order_placed", customer={"source_id": "bob"}, metadata={"amount": 4200})


def _buy_a_mug(sim: Simulator) -> None:
    program, member = _card_of(sim, "lcrd_alice_beans")
    with sim.client() as client:
        client.purchase_reward(program, member, "lrew_mug")


@pytest.mark.parametrize("act", [_review, _buy_a_mug], ids=["earning events", "a reward purchase"])
def test_a_loyalty_write_does_to_the_pulled_scenario_what_it_does_to_the_original(
        act: Callable[[Simulator], None], demo_pulled: Path) -> None:
    original = Simulator.from_scenario(SCENARIOS / "demo.yaml")
    before = _loyalty_answers(original)
    after = _after(original, act)
    assert after != before  # the write changed a card (or a reward's stock)
    assert _after(Simulator.from_scenario(demo_pulled), act) == after


def test_pulling_twice_gives_the_same_bytes(demo_pulled: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.yaml"
    pull(target_of(Simulator.from_scenario(SCENARIOS / "demo.yaml")), again)
    assert again.read_bytes() == demo_pulled.read_bytes()
    assert report_path(again).read_bytes() == report_path(demo_pulled).read_bytes()


def test_the_report_says_what_the_loyalty_reads_do_not_carry(demo_pulled: Path) -> None:
    demo = Simulator.from_scenario(SCENARIOS / "demo.yaml")
    rows = [row for row in _rows(demo_pulled) if row[0] not in ("campaign", "project")]
    state = demo.state
    rules = [r.id for r in state.earning_rules.values()
             if state.incentives[r.incentive_id].type in ("POINTS", "POINTS_PROPORTIONAL")]
    assert rows == sorted(
        [("loyalty_campaign", d, "program") for d in state.card_definitions]  # one program per card definition
        + [("earning_rule", r, "incentive") for r in rules]  # its id, stock and status are not read
        + [("event_schema", e, "metadata") for e in {state.earning_rules[r].event for r in rules}]
        # lrew_mug's 28 left in stock, over its two assignments: the first holds them
        + [("reward_assignment", "lrewa_legacy_mug", "stock")])


class _Real(httpx.BaseTransport):
    """The demo as a real project shows it: a card's id that is not its code, a card of no pulled
    customer, a card that spent points, a points reward and a gift card reward of no balance, a
    loyalty tier, an earning rule with a validation rule and two a scenario cannot hold, an
    assignment priced in two campaigns."""

    def __init__(self, sim: Simulator) -> None:
        self.inner = SimulatorTransport(sim)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        path = request.url.path
        if request.method != "GET" or not path.startswith(("/v1/loyalties/lcdef_st", "/v1/rewards")):
            return response
        body = json.loads(response.read())
        if path == "/v1/loyalties/lcdef_stars/members":
            body["vouchers"][0] |= {"id": "v_alice_stars", "redemption": {"redeemed_quantity": 2, "redeemed_points": 40}}
        elif path.startswith("/v1/loyalties/lcdef_stars/"):
            return httpx.Response(response.status_code, json=body)
        elif path.endswith("/members"):
            body["vouchers"][0] |= {"id": "v_legacy_bob", "holder_id": "cust_nobody"}
        elif path == "/v1/loyalties/lcdef_stamps/rewards":  # the beans' mug, priced in stamps too
            body["data"].append({"id": "lrewa_mug", "reward_id": "lrew_mug", "related_object_id": "lcdef_stamps",
                                 "parameters": {"loyalty": {"points": 4}}, "created_at": "2026-01-01T00:00:00.000Z",
                                 "object": "reward_assignment"})
            body["total"] += 1
        elif path.endswith("/tiers"):
            body["data"] = [{"id": "ltr_gold", "name": "Gold", "campaign_id": "lcdef_stamps", "config": {},
                             "created_at": "2026-01-01T00:00:00.000Z", "object": "loyalty_tier"}]
            body["total"] = 1
        elif path.endswith("/earning-rules"):
            body["data"] = [{"id": "ern_stamp", "created_at": "2026-01-01T00:00:00.000Z", "validation_rule_id": "val_x",
                             "loyalty": {"type": "FIXED", "points": 1}, "event": "order_placed",
                             "source": {"banner": "A stamp an order", "object_id": "lcdef_stamps",
                                        "object_type": "campaign"}, "active": True, "object": "earning_rule",
                             "automation_id": "auto_x", "metadata": {}},
                            {"id": "ern_tier", "created_at": "2026-01-01T00:00:00.000Z",
                             "loyalty": {"type": "PROPORTIONAL", "calculation_type": "LOYALTY_TIER"},
                             "event": "order_placed", "source": {}, "active": True, "object": "earning_rule",
                             "automation_id": "auto_y"},
                            {"id": "ern_items", "created_at": "2026-01-01T00:00:00.000Z",  # names no item
                             "loyalty": {"type": "PROPORTIONAL", "calculation_type": "ORDER_ITEMS_QUANTITY",
                                         "order_items": {"quantity": {"every": 1, "points": 1}}},
                             "event": "order_placed", "source": {}, "active": True, "object": "earning_rule",
                             "automation_id": "auto_z"}]
            body["total"] = 3
        elif path == "/v1/rewards":
            body["data"].append({"id": "rew_points", "name": "Bonus points", "type": "CAMPAIGN",
                                 "parameters": {"campaign": {"id": "lcdef_beans", "type": "LOYALTY_PROGRAM"}},
                                 "created_at": "2026-01-01T00:00:00.000Z", "object": "reward"})
            body["data"].append({"id": "rew_no_balance", "name": "A gift card of no balance", "type": "CAMPAIGN",
                                 "parameters": {"campaign": {"id": "camp_gift", "type": "GIFT_VOUCHERS"}},
                                 "created_at": "2026-01-01T00:00:00.000Z", "object": "reward"})
            body["total"] += 2
        return httpx.Response(response.status_code, json=body)


def test_what_a_real_project_adds_is_reported_and_the_pull_goes_on(tmp_path: Path) -> None:
    demo = Simulator.from_scenario(SCENARIOS / "demo.yaml")
    out = tmp_path / "real.yaml"
    pull(target_of(demo, _Real(demo)), out)
    rows = set(_rows(out))
    assert {("loyalty_card", "v_legacy_bob", "holder_id"),  # its holder is no pulled customer: left out
            ("loyalty_tier", "ltr_gold", "campaign_id"),
            ("earning_rule", "ern_stamp", "validation_rule_id"),  # kept, without its conditions
            ("earning_rule", "ern_tier", "loyalty"),  # no scenario incentive earns per tier: left out
            ("earning_rule", "ern_items", "loyalty"),  # nor counts the items of no product: left out
            ("reward", "rew_points", "type"),
            ("reward", "rew_no_balance", "parameters"),  # a gift card reward names its balance: left out
            ("reward_assignment", "lrewa_mug", "related_object_id"),  # one program's: kept in the beans'
            ("loyalty_card", "v_alice_stars", "id"),  # a card is its code
            ("loyalty_card", "v_alice_stars", "redemption.redeemed_points")} <= rows  # spent: the history's
    ours = Simulator.from_scenario(out)
    assert not {"lcrd_legacy_bob", "v_legacy_bob"} & set(ours.state.cards)
    assert not {"rew_points", "rew_no_balance"} & set(ours.state.rewards)
    assert ours.state.cards["lcrd_alice_stars"].balance == 12
    assert [c.card_definition_id for c in ours.state.reward_assignments["lrewa_mug"].costs] == ["lcdef_beans"]
    assert [r.id for r in ours.state.earning_rules.values() if r.event == "order_placed"] == [
        "lern_order", "lern_loyal_stars", "ern_stamp"]


_POINTS = st.integers(0, 5000)


@st.composite
def _programs(draw: st.DrawFn) -> dict[str, Any]:
    """A scenario of customers in loyalty programs of one or two card definitions, with rewards
    (products, stocked or not, assigned in one or more programs) and earning rules."""
    customers = [{"id": f"cust_{n}", "source_id": f"c{n}"} for n in range(draw(st.integers(1, 4)))]
    products = [{"id": "prod_mug", "name": "Mug"}, {"id": "prod_tote", "name": "Tote"}]
    rewards = [{"id": f"lrew_{n}", "name": f"reward {n}", "type": "MATERIAL",
                "material": {"product": {"id": draw(st.sampled_from(["prod_mug", "prod_tote"]))}}}
               for n in range(draw(st.integers(0, 3)))]
    incentives, programs = [], []
    for p in range(draw(st.integers(1, 2))):
        definitions = [f"lcdef_{p}_{d}" for d in range(draw(st.integers(1, 2)))]
        members = [{"customer": c["id"], "status": draw(st.sampled_from(["ACTIVE", "INACTIVE"])),
                    "cards": [{"id": f"lcrd_{p}_{d}_{c['id']}", "card_definition": d, "balance": draw(_POINTS)}
                              for d in draw(st.lists(st.sampled_from(definitions), min_size=1, unique=True))]}
                   for c in draw(st.lists(st.sampled_from(customers), unique_by=lambda c: c["id"]))]
        offered = [{"id": f"lrewa_{p}_{r['id']}", "reward": r["id"], "stock": draw(st.none() | st.integers(0, 50)),
                    "costs": [{"card_definition": draw(st.sampled_from(definitions)), "points": draw(_POINTS)}]}
                   for r in (draw(st.lists(st.sampled_from(rewards), unique_by=lambda r: r["id"])) if rewards else [])]
        rules = []
        for n in range(draw(st.integers(0, 2))):
            iid = f"linc_{p:x}{n:x}0"
            credited = draw(st.sampled_from(definitions))
            incentives.append(draw(st.sampled_from([
                {"id": iid, "name": f"points {n}", "type": "POINTS",
                 "points": {"value": draw(_POINTS), "card_definition_id": credited}},
                {"id": iid, "name": f"per amount {n}", "type": "POINTS_PROPORTIONAL",
                 "points_proportional": {"calculation_type": "ORDER_METADATA_VALUE", "card_definition_id": credited,
                                         "order": {"metadata": {"every": 100, "value": 2, "property": "amount"}}}},
            ])))
            rules.append({"id": f"lern_{p}_{n}", "event": "order_placed", "incentive": iid,
                          "active": draw(st.booleans())})
        programs.append({"id": f"lprg_{p}", "name": f"Club {p}", "status": draw(st.sampled_from(["ACTIVE", "INACTIVE"])),
                         "card_definitions": [{"id": d, "name": f"wallet {d}"} for d in definitions],
                         "members": members, "rewards": offered, "earning_rules": rules})
    return {"version": 1, "clock": {"start": "2026-05-01T09:00:00Z"}, "catalogue": {"products": products},
            "customers": customers, "event_schema": [{"name": "order_placed"}],
            "loyalty": {"rewards": rewards, "incentives": incentives, "programs": programs}}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=_programs())
def test_generated_programs_round_trip(document: dict[str, Any], tmp_path: Path) -> None:
    original = Simulator.from_scenario(document)
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    assert _loyalty_answers(pulled_back(original, first)) == _loyalty_answers(original)
    pull(target_of(original), second)  # the same project pulled again: the same bytes
    assert second.read_bytes() == first.read_bytes()


def _set(listed: str, oid: str, path: str, value: Any) -> Rewrite:
    """A target answering its list `listed` with the `path` (dotted) of object `oid` set to `value`."""
    def rewrite(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
        response = real()
        body = json.loads(response.content)
        *parents, last = path.split(".")
        [obj] = [o for o in body[listed] if o["id"] == oid]
        for name in parents:
            obj = obj.setdefault(name, {})
        obj[last] = value
        return httpx.Response(response.status_code, json=body)
    return rewrite


_MEMBERS, _RULES, _ASSIGNED = ("/v1/loyalties/lcdef_beans/" + p for p in ("members", "earning-rules", "rewards"))
_PROPORTIONAL = {"type": "PROPORTIONAL", "calculation_type": "ORDER_AMOUNT"}


@pytest.mark.parametrize(("path", "rewrite", "row", "gone"), [
    (_MEMBERS, _set("vouchers", "lcrd_frank_beans", "loyalty_card.balance", "lots"),
     ("loyalty_card", "lcrd_frank_beans", "loyalty_card.balance"), "lcrd_frank_beans"),
    (_MEMBERS, _set("vouchers", "lcrd_frank_beans", "loyalty_card.balance", -5),
     ("loyalty_card", "lcrd_frank_beans", "loyalty_card.balance"), "lcrd_frank_beans"),
    (_MEMBERS, _set("vouchers", "lcrd_frank_beans", "redemption", {"redeemed_points": "40"}),
     ("loyalty_card", "lcrd_frank_beans", "redemption.redeemed_points"), None),
    (_ASSIGNED, _set("data", "lrewa_mug", "parameters", {"loyalty": "500"}), ("reward_assignment", "lrewa_mug", "reward_id"),
     "lrewa_mug"),
    (_ASSIGNED, _set("data", "lrewa_mug", "parameters.loyalty.points", True), ("reward_assignment", "lrewa_mug", "reward_id"),
     "lrewa_mug"),
    (_ASSIGNED, _set("data", "lrewa_mug", "parameters.loyalty.points", -3), ("reward_assignment", "lrewa_mug", "reward_id"),
     "lrewa_mug"),
    ("/v1/rewards", _set("data", "lrew_mug", "parameters", {"product": "prod_mug"}), ("reward", "lrew_mug", "parameters"),
     "lrew_mug"),
    ("/v1/rewards", _set("data", "lrew_beans_1kg", "parameters.product.sku_id", ["sku_ethiopia_1000"]),
     ("reward", "lrew_beans_1kg", "parameters"), "lrew_beans_1kg"),
    ("/v1/rewards", _set("data", "lrew_coupon", "parameters.campaign.type", ["DISCOUNT_COUPONS"]),
     ("reward", "lrew_coupon", "type"), "lrew_coupon"),
    ("/v1/rewards", _set("data", "lrew_coupon", "parameters", {"campaign": "camp_newsletter"}), ("reward", "lrew_coupon", "type"),
     "lrew_coupon"),
    (_RULES, _set("data", "lern_order", "loyalty", {**_PROPORTIONAL, "order": "amount"}), ("earning_rule", "lern_order", "loyalty"),
     "lern_order"),
    (_RULES, _set("data", "lern_order", "loyalty", {**_PROPORTIONAL, "order": {"amount": "1 a cent"}}),
     ("earning_rule", "lern_order", "loyalty"), "lern_order"),
    (_RULES, _set("data", "lern_order", "loyalty", {**_PROPORTIONAL, "order": {"amount": {"every": 1, "points": 1,
                                                                              "object": {"a": 1}}}}),
     ("earning_rule", "lern_order", "loyalty"), "lern_order"),
    ("/v1/loyalties", _set("campaigns", "lcdef_beans", "voucher.loyalty_card.points", "5"),
     ("loyalty_campaign", "lcdef_beans", "voucher.loyalty_card.points"), None),
], ids=["balance not a number", "balance below 0", "spent points not a number", "assignment's loyalty not an object",
        "price a bool", "price below 0", "reward's product not an object", "SKU id a list", "campaign type a list",
        "reward's campaign not an object", "rule's order not an object", "rule's amount not an object",
        "rule's item kind an object", "new card's points not a number"])
def test_a_target_value_a_scenario_cannot_hold_is_reported_and_the_pull_goes_on(
        path: str, rewrite: Rewrite, row: tuple[str, str, str], gone: str | None, tmp_path: Path) -> None:
    """A stranger's free-form objects hold anything: each odd value is a report row and its object left out,
    never a traceback nor a scenario that does not load (the pull writes what `promolab validate` accepts)."""
    demo = Simulator.from_scenario(SCENARIOS / "demo.yaml")
    out = tmp_path / "odd.yaml"
    pull(target_of(demo, Hostile(demo, path, rewrite)), out)
    assert row in set(_rows(out))
    state = Simulator.from_scenario(out).state
    held = {*state.cards, *state.reward_assignments, *state.rewards, *state.earning_rules}
    assert gone is None or gone not in held
    assert {"lcrd_alice_beans", "lern_review"} <= held  # the rest of the program is read as usual


@pytest.mark.parametrize("points", [True, -1, "50", 2.5])
def test_fixed_points_that_are_not_whole_are_reported_not_earned(points: object, tmp_path: Path) -> None:
    """A FIXED rule's `points` must be a whole number >= 0 (`True` is an int to Python): anything
    else is a report row and the rule left out, never a rule earning 1 point."""
    demo = Simulator.from_scenario(SCENARIOS / "demo.yaml")
    out = tmp_path / "odd.yaml"
    pull(target_of(demo, Hostile(demo, _RULES, _set("data", "lern_review", "loyalty",
                                                    {"type": "FIXED", "points": points}))), out)
    assert ("earning_rule", "lern_review", "loyalty") in set(_rows(out))
    assert "lern_review" not in Simulator.from_scenario(out).state.earning_rules


def test_a_rule_whose_banner_is_not_text_names_its_incentive_by_the_rule(tmp_path: Path) -> None:
    demo = Simulator.from_scenario(SCENARIOS / "demo.yaml")
    out = tmp_path / "odd.yaml"
    pull(target_of(demo, Hostile(demo, _RULES, _set("data", "lern_review", "source.banner", 5))), out)
    state = Simulator.from_scenario(out).state
    assert state.incentives[state.earning_rules["lern_review"].incentive_id].name == "lern_review"


def _listed_again(listed: str, oid: str, field: str) -> Rewrite:
    """A broken target: the first object of list `listed` with its `field` set to `oid`, an id of another
    campaign's (a rule appended, its total told; a card's code replaced)."""
    def rewrite(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
        response = real()
        body = json.loads(response.content)
        if field == "id":
            body[listed].append(dict(body[listed][0], id=oid))
            body["total"] += 1
        else:
            body[listed][0][field] = oid
        return httpx.Response(response.status_code, json=body)
    return rewrite


@pytest.mark.parametrize(("path", "rewrite", "row"), [
    ("/v1/loyalties/lcdef_stars/earning-rules", _listed_again("data", "lern_order", "id"),
     ("earning_rule", "lern_order", "campaign_id")),
    ("/v1/loyalties/lcdef_stars/members", _listed_again("vouchers", "lcrd_alice_beans", "code"),
     ("loyalty_card", "lcrd_alice_beans", "campaign_id")),
], ids=["an earning rule", "a card's code"])
def test_an_id_listed_in_two_campaigns_is_kept_in_the_first(path: str, rewrite: Rewrite, row: tuple[str, str, str],
                                                             demo_pulled: Path, tmp_path: Path) -> None:
    """A scenario holds an id once: the second listing is a report row, not a scenario that does not load;
    the first (the beans') is what a clean pull holds."""
    demo = Simulator.from_scenario(SCENARIOS / "demo.yaml")
    out = tmp_path / "twice.yaml"
    pull(target_of(demo, Hostile(demo, path, rewrite)), out)
    assert row in set(_rows(out))
    state, clean = Simulator.from_scenario(out).state, Simulator.from_scenario(demo_pulled).state
    assert state.cards["lcrd_alice_beans"] == clean.cards["lcrd_alice_beans"]
    assert state.earning_rules["lern_order"] == clean.earning_rules["lern_order"]
