"""What keeps a large scenario's load small and quick keeps its behaviour
(benchmarks/bench_scenario_load.py has the figures).

- the reference check walks `[*].field` in one step: the same (loc, value)
  matches as a plain recursive walk, for any document (hypothesis);
- a holder or member named by source_id is found through the builder's
  map, an id still winning over another customer's source_id;
- every record of a class shares one "fields set", which no assignment,
  copy or pickle can make one record's business leak into another's;
- the initial snapshot is kept packed: `reset` and the fingerprint give
  what they gave, values JSON cannot hold exactly included.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab.sim import ScenarioError, Simulator
from promolab.sim.kept_snapshot import KeptSnapshot
from promolab.sim.records import Customer, Voucher
from promolab.sim.scenario.references import _matches, _steps
from promolab.sim.snapshots import fingerprint

COUPONS = {"type": "DISCOUNT_COUPONS", "discount": {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"}}


def walk(node: Any, steps: tuple[str, ...], loc: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """The reference walk written the obvious way: one step at a time, recursively."""
    if node is None:
        return
    if not steps:
        yield loc, node
        return
    step, rest = steps[0], steps[1:]
    if step == "[*]":
        if isinstance(node, list):
            for i, item in enumerate(node):
                yield from walk(item, rest, (*loc, i))
    elif isinstance(node, Mapping):
        if step == "*":
            for key, item in node.items():
                yield from walk(item, rest, (*loc, key))
        elif node.get(step) is not None:
            yield from walk(node[step], rest, (*loc, step))


KEYS = st.sampled_from(["a", "b", "c"])
LEAVES = st.one_of(st.none(), st.integers(0, 3), st.sampled_from(["x", "y"]))
DOCUMENTS = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(KEYS, inner, max_size=3)), max_leaves=25)
PATTERNS = st.lists(st.sampled_from(["a", "b", "c", "[*]", "*"]), min_size=1, max_size=5).map(tuple)


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS, PATTERNS)
def test_the_reference_walk_matches_the_plain_recursive_walk(document: Any, steps: tuple[str, ...]) -> None:
    assert _matches(document, steps) == list(walk(document, steps))


def test_a_list_step_with_a_field_skips_nulls_non_mappings_and_missing_fields() -> None:
    codes = [None, 3, "x", {"code": "A"}, {"code": "B", "holder": None}, {"code": "C", "holder": "ann"}, []]
    document = {"campaigns": [{"vouchers": codes}, {"vouchers": {"table": "t.parquet"}}, {}]}
    assert _matches(document, _steps("campaigns[*].vouchers[*].holder")) == [(("campaigns", 0, "vouchers", 5, "holder"), "ann")]
    assert _matches(document, _steps("campaigns[*].vouchers[*].code")) == [
        (("campaigns", 0, "vouchers", i, "code"), code) for i, code in ((3, "A"), (4, "B"), (5, "C"))]


def scenario(customers: list[dict[str, Any]], vouchers: list[dict[str, Any]]) -> dict[str, Any]:
    return {"customers": customers, "campaigns": [{"id": "camp_codes", "name": "Codes", **COUPONS, "vouchers": vouchers}]}


def test_holders_named_by_source_id_among_many_customers_are_the_right_ones() -> None:
    customers = [{"id": f"cust_{n}", "source_id": f"src_{n}"} for n in range(3_000)]
    vouchers = [{"code": f"C-{n}", "holder": f"src_{n * 7 % 3_000}"} for n in range(500)]
    sim = Simulator.from_scenario(scenario(customers, vouchers))
    holders = {v.code: v.holder_id for v in sim.state.vouchers.values()}
    assert holders == {f"C-{n}": f"cust_{n * 7 % 3_000}" for n in range(500)}


def test_an_id_wins_over_another_customers_source_id_and_a_refused_customer_is_no_holder() -> None:
    customers = [{"id": "cust_a", "source_id": "cust_b"}, {"id": "cust_b", "source_id": "b"}]
    document = scenario(customers, [{"code": "BY-ID", "holder": "cust_b"}, {"code": "BY-SOURCE", "holder": "b"}])
    sim = Simulator.from_scenario(document)
    assert {v.code: v.holder_id for v in sim.state.vouchers.values()} == {"BY-ID": "cust_b", "BY-SOURCE": "cust_b"}
    twice = [*customers, {"id": "cust_c", "source_id": "c"}, {"id": "cust_d", "source_id": "c"}]  # the second is refused
    with pytest.raises(ScenarioError) as refused:
        Simulator.from_scenario(scenario(twice, [{"code": "C", "holder": "c"}, {"code": "D", "holder": "cust_d"}]))
    # one issue: "c" is the first customer's, and the refused one is not reported again as unknown
    assert [(issue.path, issue.problem) for issue in refused.value.issues] == [
        ("customers[3].source_id", "duplicate source_id 'c'")]


def test_records_of_a_class_share_one_set_of_every_field_and_stay_apart() -> None:
    one = Voucher(id="v_1", code="ONE")
    two = Voucher.model_validate({"id": "v_2", "code": "TWO", "metadata": {"k": 1}})
    assert one.model_fields_set is two.model_fields_set
    assert one.model_fields_set == set(Voucher.model_fields)
    assert Customer(id="c").model_fields_set == set(Customer.model_fields)
    one.redeemed_quantity = 3
    copied = two.model_copy(update={"code": "THREE"})
    assert (one.redeemed_quantity, two.redeemed_quantity, two.code, copied.code) == (3, 0, "TWO", "THREE")
    assert one.model_fields_set == set(Voucher.model_fields)
    again = pickle.loads(pickle.dumps([one, two]))
    assert again == [one, two] and again[0].model_fields_set == set(Voucher.model_fields)
    assert copy.deepcopy(two) == two


ODD = {"big": 10**40, "inf": float("inf"), "tiny": 5e-324, "text": "caf\u00e9 \U0001f600", "nested": [[{"a": None}]]}


def test_the_kept_snapshot_unpacks_to_the_snapshot_values_json_cannot_hold_included() -> None:
    snapshot = {"format": "f", "state": {"odd": ODD, "lone": "\udc80"}}
    kept = KeptSnapshot.of(snapshot)
    assert kept.snapshot() == snapshot
    assert kept.snapshot() is not kept.snapshot()  # each caller its own copy


def test_reset_and_the_fingerprint_are_those_of_the_state_as_loaded() -> None:
    customers = [{"id": "cust_odd", "source_id": "odd", "metadata": ODD}]
    sim = Simulator.from_scenario(scenario(customers, [{"code": f"C-{n}"} for n in range(50)]))
    loaded = sim.snapshot()
    assert sim.initial_fingerprint() == fingerprint(loaded)
    sim.state.customers["cust_odd"].metadata["big"] = 1
    del sim.state.vouchers[next(iter(sim.state.vouchers))]
    sim.advance(3600)
    assert sim.snapshot() != loaded
    sim.reset()
    assert sim.snapshot() == loaded
    assert sim.initial_fingerprint() == fingerprint(loaded)
    restored = Simulator.restore(loaded)
    assert restored.initial_fingerprint() == sim.initial_fingerprint()
