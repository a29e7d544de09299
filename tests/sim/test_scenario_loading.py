"""Loading scenarios: all or nothing, reproducible, ids and references."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from promolab import ScenarioError, Simulator
from promolab.sim.ids import PREFIXES


def test_loading_the_demo_twice_gives_identical_dumps(demo_path: Path) -> None:
    assert Simulator.from_scenario(demo_path).dump_json() == Simulator.from_scenario(demo_path).dump_json()


def test_file_mapping_and_json_give_the_same_simulator(demo_path: Path, _demo_document: dict[str, Any],
                                                       tmp_path: Path) -> None:
    as_json = tmp_path / "demo.json"
    as_json.write_text(json.dumps(_demo_document), encoding="utf-8")
    from_file = Simulator.from_scenario(demo_path)
    assert Simulator.from_scenario(copy.deepcopy(_demo_document)).dump_json() == from_file.dump_json()
    assert Simulator.from_scenario(as_json).dump_json() == from_file.dump_json()
    assert image(from_file) == image(Simulator.from_scenario(as_json))


def image(sim: Simulator) -> str:
    return json.dumps(sim.snapshot())


def test_the_demo_is_what_the_notebooks_expect(sim: Simulator) -> None:
    st = sim.state
    assert sim.seed == 7
    assert sim.clock.iso() == "2026-03-06T10:00:00.000Z"
    assert st.project.id == "proj_kestrel"
    assert len(st.incentives) == 7 and len(st.rewards) == 6 and len(st.programs) == 2
    assert len(st.webhooks) == 2 and {w.status for w in st.webhooks.values()} == {"ACTIVE"}
    # every campaign type and every discount type of the interface is present
    assert {c.type for c in st.campaigns.values()} == {"PROMOTION", "DISCOUNT_COUPONS", "GIFT_VOUCHERS", "REFERRAL_PROGRAM"}
    assert {t.discount["type"] for t in st.tiers.values()} == {"AMOUNT", "PERCENT", "FIXED", "UNIT"}
    # code pools were generated: 25 newsletter + 3 welcome + 12 gift + 12 referral + 2 member codes
    assert len(st.vouchers) == 25 + 3 + 12 + 12 + 2
    assert all(v.code.startswith("NEWS-") for v in st.vouchers.values() if v.campaign_id == "camp_newsletter")


def test_a_failing_load_leaves_nothing_behind(demo_path: Path, _demo_document: dict[str, Any]) -> None:
    """The error is in the last pass (webhooks), after everything else was
    built; the load raises, nothing escapes, the caller's mapping is intact
    and the next load is unaffected."""
    document = copy.deepcopy(_demo_document)
    document["webhooks"].append({"url": "https://example.com/hook", "receiver": "both"})
    untouched = copy.deepcopy(document)
    reference = Simulator.from_scenario(demo_path).dump_json()
    loaded: list[Simulator] = []
    with pytest.raises(ScenarioError, match=r"^<scenario>: webhooks\[2\]: give exactly one of url or receiver$"):
        loaded.append(Simulator.from_scenario(document))
    assert loaded == []
    assert document == untouched
    assert Simulator.from_scenario(demo_path).dump_json() == reference


def test_loading_does_not_mutate_the_mapping(_demo_document: dict[str, Any]) -> None:
    document = copy.deepcopy(_demo_document)
    Simulator.from_scenario(document).advance(60)
    assert document == _demo_document


def test_an_empty_scenario_is_an_empty_project() -> None:
    sim = Simulator.from_scenario({})
    assert sim.state.project.id == "proj_promolab"
    assert sim.state.incentives == {}
    assert sim.clock.iso() == "2026-01-01T00:00:00.000Z"


#: An explicit product id in the interface's format (the other products' ids are generated).
GIFT_MUG = "prod_" + "0" * 23 + "1"

GENERATED = {
    "catalogue": {
        "products": [{"name": "Mug", "price": 1200, "skus": [{"sku": "Blue", "price": 1200}]},
                     {"id": GIFT_MUG, "name": "Gift mug", "price": 900}],
        "collections": [{"name": "All", "products": ["mug-source"]}],
    },
    "customers": [{"source_id": "ann"}, {"source_id": "ben"}],
    "segments": [{"name": "Both", "customers": ["ann", "ben"]}],
    "campaigns": [
        {"name": "Promo", "tiers": [{"name": "T", "discount": {"type": "AMOUNT", "amount_off": 1, "effect": "APPLY_TO_ORDER"}}]},
        {"name": "Coupons", "type": "DISCOUNT_COUPONS",
         "discount": {"type": "PERCENT", "percent_off": 5, "effect": "APPLY_TO_ORDER"},
         "vouchers": [{"code": "C-1", "holder": "ann"}]},
    ],
    "loyalty": {
        # a reward names its product by id, which only an explicit id can be (a generated one is not known yet)
        "rewards": [{"name": "Mug", "type": "MATERIAL", "material": {"product": {"id": GIFT_MUG}}}],
        "incentives": [{"name": "Ten", "type": "POINTS", "points": {"value": 10, "card_definition_id": "lcdef_fixed"}}],
        "programs": [{
            "name": "Club",
            "card_definitions": [{"id": "lcdef_fixed", "name": "Points"}],
            "members": [{"customer": "ben", "cards": [{"card_definition": "lcdef_fixed", "balance": 5}]}],
        }],
    },
    "webhooks": [{"receiver": "notebook"}],
}


def with_source_product() -> dict[str, Any]:
    document = copy.deepcopy(GENERATED)
    document["catalogue"]["products"][0]["source_id"] = "mug-source"
    return document


def test_missing_ids_are_generated_in_the_interface_formats() -> None:
    st = Simulator.from_scenario(with_source_product(), seed=11).state
    tables = {
        "product": st.products, "sku": st.skus, "collection": st.collections, "customer": st.customers,
        "segment": st.segments, "campaign": st.campaigns, "promotion_tier": st.tiers, "voucher": st.vouchers,
        "reward": st.rewards, "incentive": st.incentives, "program": st.programs, "member": st.members,
        "card": st.cards, "webhook": st.webhooks,
    }
    for kind, table in tables.items():
        assert table, kind
        for generated in table:
            assert re.fullmatch(re.escape(PREFIXES[kind]) + "[0-9a-f]{24}", generated), (kind, generated)
    assert list(st.card_definitions) == ["lcdef_fixed"]  # explicit ids are kept


def test_generated_ids_follow_the_seed() -> None:
    a = Simulator.from_scenario(with_source_product(), seed=1).dump_json()
    assert a == Simulator.from_scenario(with_source_product(), seed=1).dump_json()
    b = Simulator.from_scenario(with_source_product(), seed=2).dump_json()
    assert a != b
    assert "lcdef_fixed" in a and "lcdef_fixed" in b


def test_seed_is_the_argument_then_the_scenario_then_zero() -> None:
    assert Simulator.from_scenario({"seed": 5}).seed == 5
    assert Simulator.from_scenario({"seed": 5}, seed=9).seed == 9
    assert Simulator.from_scenario({}).seed == 0


def test_references_resolve_by_id_and_customers_and_products_by_source_id() -> None:
    st = Simulator.from_scenario(with_source_product(), seed=3).state
    ann, ben = (next(c.id for c in st.customers.values() if c.source_id == s) for s in ("ann", "ben"))
    (segment,) = st.segments.values()
    assert segment.customers == [ann, ben]
    (member,) = st.members.values()
    assert member.customer_id == ben
    (voucher,) = st.vouchers.values()
    assert voucher.holder_id == ann and voucher.publish_count == 1
    (collection,) = st.collections.values()
    assert collection.products == [p for p in st.products if p != GIFT_MUG]
    (card,) = st.cards.values()
    assert (card.member_id, card.card_definition_id, card.balance) == (member.id, "lcdef_fixed", 5)


def test_explicit_ids_mirror_a_real_project(sim: Simulator) -> None:
    assert "linc_0a11ce01" in sim.state.incentives
    assert sim.state.members["lmbr_alice"].customer_id == "cust_alice"
    assert sim.state.reward_assignments["lrewa_mug"].reward_id == "lrew_mug"


def test_generated_ids_never_collide_with_explicit_ones() -> None:
    from promolab.sim.ids import IdGenerator

    taken = IdGenerator(4).next("customer")
    st = Simulator.from_scenario({"customers": [{"id": taken}, {"source_id": "x"}]}, seed=4).state
    assert len(st.customers) == 2
    assert next(iter(st.customers)) == taken


def test_scenario_clock_start_is_used(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"clock": {"start": "2026-07-01T08:00:00+02:00"}}), encoding="utf-8")
    assert Simulator.from_scenario(path).clock.iso() == "2026-07-01T06:00:00.000Z"
