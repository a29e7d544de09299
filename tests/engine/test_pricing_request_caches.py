"""The request-level caches of the pricing engine give exactly the plain answers.

A validation request is answered by `RunningTiers.at` (which campaigns run now,
remembered over a span of instants), `price_running` (one rule environment for
all tiers, no outcome for a failing tier) and `promotion_entry` /
`promotion_entries` (the `promotions[]` entry from a planned template); orders of plain items share their
lines, amounts, order-only rule verdicts and settlements (`NormalizedOrder.shared`).
Each shortcut is checked here against its plain definition: `CampaignCheck.evaluate`,
`price_normalized`, `promotion_tier_wire`, a fresh normalization and rendering.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st
from pricing_builders import NOW, campaign, ctx, customer, mutate_everything, tier

from promolab.engine import (
    OPERATORS,
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
    PricingInputError,
    RunningTiers,
    compile_tier,
    copy_order,
    normalize_order,
    order_wire,
    outcome_wire,
    price_normalized,
    price_running,
    promotion_entries,
    promotion_entry,
    promotion_tier_wire,
)
from promolab.engine import normalize as items_module
from promolab.engine.campaign import compile_campaign
from promolab.engine.conditions import NOW_OPERATORS, compile_predicates
from promolab.engine.settle import _compute

# --- campaign spans -----------------------------------------------------------------------------
_T0 = datetime(2026, 3, 1, tzinfo=UTC)
_ZONES = [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8)), ZoneInfo("Europe/Paris")]
_FRAMES = [None, {"interval": "P1D", "duration": "PT2H"}, {"interval": "PT6H", "duration": "PT30M"},
           {"interval": "P1M", "duration": "P2D"}, {"interval": "P1W", "duration": "P1D"}]


@st.composite
def campaigns(draw: st.DrawFn) -> Any:
    start = draw(st.none() | st.integers(-20, 20).map(lambda d: _T0 + timedelta(days=d, hours=draw(st.integers(0, 23)))))
    expiry = draw(st.none() | st.integers(-10, 40).map(lambda d: _T0 + timedelta(days=d, seconds=draw(st.integers(0, 86399)))))
    days = draw(st.none() | st.lists(st.integers(0, 6), min_size=1, max_size=4, unique=True))
    return campaign(
        active=draw(st.booleans() | st.just(True)),
        start_date=start,
        expiration_date=expiry,
        validity_timeframe=draw(st.sampled_from(_FRAMES)),
        validity_day_of_week=tuple(days) if days else None,
    )


instants = st.integers(-30 * 24 * 60, 60 * 24 * 60).map(lambda m: _T0 + timedelta(minutes=m, microseconds=m % 7))


def _verdict(failure: Any) -> Any:
    return None if failure is None else (failure.key, failure.message)


@settings(max_examples=400, deadline=None)
@given(campaigns(), instants, st.sampled_from(_ZONES), st.lists(st.integers(-3000, 3000), max_size=12))
def test_a_campaign_verdict_holds_over_its_span(info: Any, instant: datetime, zone: Any, offsets: list[int]) -> None:
    check = compile_campaign(info)
    now = instant.astimezone(zone)
    verdict, lo, hi = check.span(now)
    assert _verdict(verdict) == _verdict(check.evaluate(now))
    if lo is not None and lo == hi:
        return  # an empty span: nothing is promised
    assert (lo is None or lo <= now) and (hi is None or now < hi)
    probes = [now + timedelta(minutes=o) for o in offsets]
    probes += [t for t in (lo, hi and hi - timedelta(microseconds=1)) if t is not None]
    for t in probes:
        t = t.astimezone(zone)
        if (lo is None or lo <= t) and (hi is None or t < hi):
            assert _verdict(check.evaluate(t)) == _verdict(verdict), t


@settings(max_examples=150, deadline=None)
@given(st.lists(campaigns(), min_size=1, max_size=4), st.lists(st.tuples(instants, st.sampled_from(_ZONES)), max_size=15))
def test_running_tiers_are_the_tiers_whose_campaign_passes(infos: list[Any], moments: list[tuple[datetime, Any]]) -> None:
    """Any sequence of instants (forwards, backwards, other timezones)."""
    tiers = [compile_tier(tier({"type": "AMOUNT", "amount_off": 100}, id=f"t{i}", campaign=c)) for i, c in enumerate(infos)]
    running = RunningTiers(tiers)
    for instant, zone in moments:
        now = instant.astimezone(zone)
        for _ in range(2):  # computed, then remembered
            assert running.at(now) == tuple(t for t in tiers if t.campaign.evaluate(now) is None)
            assert _verdict(tiers[0].campaign.verdict_at(now)[0]) == _verdict(tiers[0].campaign.evaluate(now))


# --- conditions that read the instant -----------------------------------------------------------
@settings(max_examples=600)
@given(
    st.sampled_from(sorted(set(OPERATORS) - NOW_OPERATORS)),
    st.lists(st.one_of(st.integers(-5, 200), st.sampled_from(["2026-03-01T00:00:00Z", "gold", "3", 2.5])), max_size=3),
    st.one_of(st.none(), st.integers(-5, 200), st.sampled_from(["2026-02-27T10:00:00Z", "gold", "3", ""]),
              st.lists(st.sampled_from(["gold", 3]), max_size=2)),
    st.integers(-400, 400),
)
def test_only_now_operators_read_the_instant(op: str, args: list[Any], value: Any, days: int) -> None:
    """Verdicts of rules without these operators are shared between requests
    at different instants (`rules._order_only`): they must not depend on it."""
    (predicate,) = compile_predicates({op: args})

    def outcome(now: datetime) -> Any:
        try:
            return predicate(value, now)
        except Exception as exc:  # noqa: BLE001 - failing the same way is the same answer
            return type(exc)

    assert outcome(NOW) == outcome(NOW + timedelta(days=days, hours=days % 24))


# --- a catalogue and tiers for the request paths ------------------------------------------------
CAT = Catalogue(
    products=[
        CatalogueProduct("prod_a", "a", "A", 1000, {"made": "2026-01-05T00:00:00Z"}),
        CatalogueProduct("prod_b", "b", "B", 500),
        CatalogueProduct("prod_c", None, "C", 300),
        CatalogueProduct("prod_5h1pp1ng", "5h1pp1ng", "Shipping"),
    ],
    skus=[CatalogueSku("sku_a1", "a1", "A1", "prod_a", 1250)],
    collections=[CatalogueCollection("pc_ab", "AB", product_ids=frozenset({"prod_a", "prod_b"}))],
)
AB = {"included": [{"object": "products_collection", "id": "pc_ab", "aggregated_quantity_limit": 3}]}
RULE_AMOUNT = {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [1500]}}, "logic": "1"}}
RULE_VIP = {"rules": {"1": {"name": "customer.segment", "conditions": {"$in": ["seg_vip"]}},
                      "2": {"name": "product.id", "conditions": {"$in": ["prod_a"]}}, "logic": "1 or 2"}}
RULE_FRESH = {"rules": {"1": {"name": "order.items.metadata", "property": "made",
                              "conditions": {"$less_than_ago": [5]}}, "logic": "1"}}
TIERS = [
    compile_tier(spec) for spec in (
        tier({"type": "AMOUNT", "amount_off": 700, "effect": "APPLY_TO_ORDER"}, id="t_order", rules=RULE_AMOUNT,
             metadata={"nested": {"k": [1, 2]}}, banner="B"),
        tier({"type": "PERCENT", "percent_off": 12.5, "effect": "APPLY_TO_ITEMS"}, id="t_pct", applicable_to=AB,
             rules=RULE_VIP),
        tier({"type": "AMOUNT", "amount_off": 900, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"}, id="t_split",
             applicable_to=AB),
        tier({"type": "FIXED", "fixed_amount": 300, "effect": "APPLY_TO_ITEMS"}, id="t_fixed",
             applicable_to={"included": [{"object": "product", "id": "prod_a"}]}, rules=RULE_FRESH),
        tier({"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_5h1pp1ng"}, id="t_ship",
             campaign=campaign(categories=({"id": "cat_1", "name": "C", "hierarchy": 0},))),
        tier({"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": [
            {"effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "sku_a1"},
            {"effect": "ADD_MISSING_ITEMS", "unit_off": 2, "unit_type": "prod_b"}]}, id="t_many"),
    )
]
PLAIN_ITEMS = [
    {"product_id": "prod_a", "quantity": 1},
    {"product_id": "prod_b", "quantity": 2},
    {"product_id": "prod_c", "quantity": 3},
    {"sku_id": "sku_a1", "quantity": 1},
    {"product_id": "prod_x", "quantity": 1, "price": 100},
    {"source_id": "b", "related_object": "product", "quantity": 1},
    {"product_id": "prod_a", "quantity": "2"},
]
ODD_ITEMS = [  # not plain: normalized afresh every time, never confused with a plain one
    {"product_id": "prod_a", "quantity": True},
    {"product_id": "prod_a", "quantity": 1.0},
    {"product_id": "prod_b", "quantity": 1, "metadata": {"gift": True}},
    {"product_id": "prod_x", "quantity": 1},  # unknown without a price: refused
]
CUSTOMERS = [None, customer(id="cust_1", segment_ids=frozenset({"seg_vip"})), customer(id="cust_2")]


def _orders() -> Any:
    return st.fixed_dictionaries(
        {"items": st.lists(st.sampled_from(PLAIN_ITEMS + ODD_ITEMS), max_size=4)},
        optional={"amount": st.sampled_from([0, 1200, 5000]), "metadata": st.sampled_from([{}, {"channel": "app"}]),
                  "referrer_id": st.just("cust_9")},
    )


def _fresh(order_in: dict[str, Any], customer_id: str | None) -> Any:
    """The order normalized as if never seen: a catalogue without caches."""
    fresh_cat = Catalogue(CAT.products.values(), CAT.skus.values(), CAT.collections.values())
    return fresh_cat, normalize_order(fresh_cat, order_in, customer_id)


def _normalized(cat: Catalogue, order_in: dict[str, Any], customer_id: str | None) -> Any:
    try:
        return normalize_order(cat, order_in, customer_id)
    except PricingInputError as exc:
        return ("refused", exc.field, exc.message)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_orders(), st.sampled_from(["cust_1", None])), min_size=1, max_size=6))
def test_shared_normalization_equals_a_fresh_one(requests: list[tuple[dict[str, Any], str | None]]) -> None:
    for order_in, customer_id in requests:
        shared = _normalized(CAT, order_in, customer_id)
        fresh_cat = Catalogue(CAT.products.values(), CAT.skus.values(), CAT.collections.values())
        assert shared == _normalized(fresh_cat, order_in, customer_id)


def test_equal_plain_orders_share_lines_and_results_but_not_request_values() -> None:
    order_in = {"items": [{"product_id": "prod_a", "quantity": 1}, {"product_id": "prod_b", "quantity": 2}]}
    first = normalize_order(CAT, order_in, "cust_1")
    second = normalize_order(CAT, copy.deepcopy(order_in), "cust_2")
    assert first.lines is second.lines and first.shared is second.shared
    assert first.memo is not second.memo and second.customer_id == "cust_2"
    with_amount = normalize_order(CAT, {**order_in, "amount": 100})
    assert with_amount.shared is not first.shared and with_amount.amount == 100
    odd = normalize_order(CAT, {"items": [{"product_id": "prod_a", "quantity": 1, "metadata": {"x": 1}}]})
    again = normalize_order(CAT, {"items": [{"product_id": "prod_a", "quantity": 1, "metadata": {"x": 1}}]})
    assert odd.shared is not again.shared  # not plain: private


def test_values_that_compare_equal_are_not_confused() -> None:
    """1 == 1.0 == True, but the item is not the same: the key holds exact types."""
    plain = normalize_order(CAT, {"items": [{"product_id": "prod_a", "quantity": 1}]})
    assert plain.lines[0].quantity == 1
    for odd in (True, 1.0):
        try:
            result = normalize_order(CAT, {"items": [{"product_id": "prod_a", "quantity": odd}]})
        except PricingInputError as exc:
            result = exc  # type: ignore[assignment]
        assert isinstance(result, PricingInputError), odd
    # and a failing plain item is not remembered either
    for _ in range(2):
        try:
            normalize_order(CAT, {"items": [{"product_id": "prod_x", "quantity": 1}]})
            raise AssertionError("an unknown product without a price is refused")
        except PricingInputError as exc:
            assert exc.field == "order.items[0].price"


def test_order_caches_are_bounded() -> None:
    cat = Catalogue(products=[CatalogueProduct("prod_a", "a", "A", 1000)])
    for k in range(items_module._ORDER_CACHE_LIMIT + 10):
        normalize_order(cat, {"items": [{"product_id": "prod_a", "quantity": k + 1}]})
    assert len(cat._orders) <= items_module._ORDER_CACHE_LIMIT
    assert len(cat._lines) <= items_module._CACHE_LIMIT


# --- price_running, entries and settlements against price_normalized -----------------------------
@settings(max_examples=250, deadline=None)
@given(
    st.lists(
        st.tuples(
            _orders().filter(lambda o: not any(i in ODD_ITEMS for i in o["items"])),
            st.sampled_from(range(len(CUSTOMERS))),
            st.integers(0, 20),
            st.booleans(),
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_price_running_and_entries_equal_the_plain_path(requests: list[tuple[dict[str, Any], int, int, bool, bool]]) -> None:
    """Many requests in a row (so that settlements, templates and shared verdicts
    are reused, at instants where the instant-reading rule changes its mind):
    each answer is what a fresh catalogue and `price_normalized` give."""
    for order_in, who, days, audience, expand in requests:
        cust = CUSTOMERS[who]
        context = ctx(now=NOW + timedelta(days=days), audience_only=audience,
                      expand=frozenset({"category"}) if expand else frozenset())
        order = normalize_order(CAT, order_in, cust.id if cust else None)
        got = price_running(CAT, TIERS, order, cust, context)
        fresh_cat, fresh_order = _fresh(order_in, cust.id if cust else None)
        expected = [o for t in TIERS if (o := price_normalized(fresh_cat, t, fresh_order, cust, context)).valid]
        assert [o.tier_id for o in got] == [o.tier_id for o in expected]
        for a, b, spec in zip(got, expected, [t.spec for t in TIERS if t.id in {o.tier_id for o in got}]):
            assert (a.discount_amount, a.total_amount) == (b.discount_amount, b.total_amount)
            entry = promotion_entry(a, "track_x")
            assert entry == promotion_tier_wire(spec, b, "track_x")
            assert list(entry) == list(promotion_tier_wire(spec, b, "track_x"))  # the same key order
            mutate_everything(entry)  # the caller's own: later answers must not see it


def test_a_settlement_serves_orders_with_other_request_values() -> None:
    """The third read of the same lines comes from the template: it still
    shows each request's metadata, customer and referrer."""
    lines = [{"product_id": "prod_a", "quantity": 2}, {"product_id": "prod_b", "quantity": 1}]
    for spec_tier in TIERS:
        seen = []
        for k, (meta, cust, ref) in enumerate([({}, "c1", None), ({"a": 1}, None, "r1"), ({"b": [1]}, "c3", None),
                                                ({}, "c1", None)]):
            order_in = {"items": lines, "metadata": meta} | ({"referrer_id": ref} if ref else {})
            order = normalize_order(CAT, order_in, cust)
            expected = order_wire(order, _compute(CAT, spec_tier, _fresh(order_in, cust)[1]))
            for outcome in price_running(CAT, [spec_tier], order, None, ctx()):
                wire = outcome_wire(outcome).order
                assert wire == expected and list(wire) == list(expected), (spec_tier.id, k)
                assert wire["metadata"] is not order.metadata
                seen.append(wire)
        for wire in seen:
            mutate_everything(wire)


def test_copy_order_is_a_deep_copy_sharing_nothing() -> None:
    order = normalize_order(CAT, {"items": PLAIN_ITEMS[:5], "metadata": {"m": 1}}, "c")
    for outcome in price_running(CAT, TIERS, order, None, ctx()):
        wire = outcome_wire(outcome).order
        copied = copy_order(wire)
        assert copied == copy.deepcopy(wire)
        assert _containers(copied).isdisjoint(_containers(wire))


def _containers(value: Any) -> set[int]:
    out: set[int] = set()
    if isinstance(value, dict | list):
        out.add(id(value))
        for v in value.values() if isinstance(value, dict) else value:
            out |= _containers(v)
    return out


def test_entries_of_an_invalid_outcome_are_refused() -> None:
    order = normalize_order(CAT, {"items": [{"product_id": "prod_c", "quantity": 1}]})
    outcome = price_normalized(CAT, TIERS[0], order, None, ctx())
    assert not outcome.valid
    try:
        promotion_entry(outcome, "t")
        raise AssertionError("an invalid outcome has no promotions[] entry")
    except ValueError:
        pass


def test_order_only_verdicts_follow_the_instant_when_a_rule_reads_it() -> None:
    """`RULE_FRESH` reads line metadata against the instant: the same lines
    pass on one day and fail on another, whatever was shared before."""
    order_in = {"items": [{"product_id": "prod_a", "quantity": 1}]}
    fixed = TIERS[3]
    verdicts = []
    for days in (0, 1, 30, 0, 30):
        order = normalize_order(CAT, order_in)
        at = datetime(2026, 1, 7, tzinfo=UTC) + timedelta(days=days)
        verdicts.append(bool(price_running(CAT, [fixed], order, None, ctx(now=at))))
    assert verdicts == [True, True, False, True, False]


# --- promotion_entries (the validate operation's path) against the plain wire -------------------
@settings(max_examples=250, deadline=None)
@given(
    st.lists(
        st.tuples(
            # refused items aside; the item with metadata is valid, and not plain
            _orders().filter(lambda o: not any(i in ODD_ITEMS and i != ODD_ITEMS[2] for i in o["items"])),
            st.sampled_from(range(len(CUSTOMERS))),
            st.integers(0, 20),
            st.booleans(),
            st.booleans(),
            st.sampled_from([{}, {"channel": "app"}]),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_running_entries_equal_the_plain_wire(
    requests: list[tuple[dict[str, Any], int, int, bool, bool, dict[str, Any]]],
) -> None:
    """`promotion_entries` (rules in one list pass, settlements and templates
    shared between requests, the entry completed in place) answers each
    request as `price_normalized` + `promotion_tier_wire` on a fresh catalogue,
    key order included, and every entry is the caller's own."""
    for order_in, who, days, audience, expand, metadata in requests:
        cust = CUSTOMERS[who]
        context = ctx(now=NOW + timedelta(days=days), audience_only=audience, redemption_metadata=metadata,
                      expand=frozenset({"category"}) if expand else frozenset())
        order = normalize_order(CAT, order_in, cust.id if cust else None)
        got = promotion_entries(CAT, TIERS, order, cust, context, "track_y")
        fresh_cat, fresh_order = _fresh(order_in, cust.id if cust else None)
        expected = [
            promotion_tier_wire(t.spec, o, "track_y")
            for t in TIERS
            if (o := price_normalized(fresh_cat, t, fresh_order, cust, context)).valid
        ]
        assert got == expected
        assert [list(e) for e in got] == [list(e) for e in expected]  # the same key order
        assert [list(e["order"]) for e in got] == [list(e["order"]) for e in expected]
        mutate_everything(got)


def test_plain_order_keys_are_exact() -> None:
    """The cart key of `normalize._core`: equal plain carts share one
    core, a cart with a non-plain value anywhere (an item that is not a
    dict, a float, nested metadata, a bool amount) never enters the cache."""
    cat = Catalogue(CAT.products.values(), CAT.skus.values(), CAT.collections.values())
    plain = {"items": [{"product_id": "prod_a", "quantity": 1}, {"product_id": "prod_b", "quantity": 2}]}
    assert normalize_order(cat, plain).shared is normalize_order(cat, copy.deepcopy(plain)).shared
    assert len(cat._orders) == 1
    for odd in (
        {"items": [{"product_id": "prod_a", "quantity": 1}, {"product_id": "prod_b", "quantity": 2.0}]},
        {"items": [{"product_id": "prod_a", "quantity": 1, "metadata": {"k": 1}}]},
        {"items": [{"product_id": "prod_a", "quantity": 1}], "amount": 1500.0},
    ):
        first, second = _normalized(cat, odd, None), _normalized(cat, odd, None)
        if not isinstance(first, tuple):
            assert first.shared is not second.shared
        assert len(cat._orders) == 1, odd
    assert _normalized(cat, {"items": [{"product_id": "prod_a", "quantity": 1}, "x"]}, None)[0] == "refused"
    # same items, other amounts or another position: other cores
    normalize_order(cat, {**plain, "amount": 100})
    normalize_order(cat, {"items": plain["items"][::-1]})
    assert len(cat._orders) == 3
