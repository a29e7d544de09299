"""Shadow runs of the stacking operations: their ids join the pairing.

A stacked validation holding a session, a stacked redemption on a stored
order, a rollback and a qualification, run against a stand-in drawing its
ids from another seed: every generated id (validation, session key,
redemptions, order, rollbacks) is paired, including an order's `redemptions`
keyed by redemption id, so identical projects report nothing; a planted
change in one tier's discount is found, and only there.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from promolab import Simulator
from promolab.shadow import Pace, shadow
from shadow_support import stand_in

DEMO = Path("data/scenarios/demo.yaml")
MUGS = {"items": [{"product_id": "prod_mug", "quantity": 6}]}
LINES: list[dict[str, Any]] = [
    {"op": "validate_stacked", "args": {"request": {
        "customer": {"source_id": "alice"}, "order": MUGS, "session": {"type": "LOCK"},
        "redeemables": [{"object": "voucher", "id": "WELCOME-ALICE"}, {"object": "promotion_tier", "id": "promo_welcome_10"}]}}},
    {"op": "redeem_stacked", "args": {"request": {
        "customer": {"source_id": "alice"}, "order": {**MUGS, "source_id": "o-1"},
        "redeemables": [{"object": "voucher", "id": "WELCOME-ALICE"},
                        {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 500}}]}}},
    {"op": "qualifications", "args": {"request": {
        "customer": {"source_id": "alice"}, "order": MUGS, "options": {"sorting_rule": "BEST_DEAL", "limit": 20}}}},
]


def _run(tmp_path: Path, document: dict[str, Any], lines: list[dict[str, Any]]) -> Any:
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return shadow(script, target=stand_in(document), scenario=str(DEMO), allow_writes=True, pace=Pace(1000, 1.0),
                  progress=False)


@pytest.fixture
def demo() -> dict[str, Any]:
    return yaml.safe_load(DEMO.read_text(encoding="utf-8"))


def test_identical_projects_report_nothing_and_every_generated_id_is_paired(tmp_path: Path,
                                                                          demo: dict[str, Any]) -> None:
    run = _run(tmp_path, demo, LINES)
    assert run.report.differences.empty, run.report.text()
    prefixes = {real.split("_")[0] for _, real in run.ids.pairs()}
    assert {"valid", "ssn", "r", "ord"} <= prefixes


def test_a_rollback_of_a_paired_redemption_runs_on_both_sides(tmp_path: Path, demo: dict[str, Any]) -> None:
    """The script names the simulator's parent redemption id (a journal of
    the simulator would): the real side gets its own."""
    sim = Simulator.from_scenario(str(DEMO))
    with sim.client() as client:
        parent = client.redeem_stacked(LINES[1]["args"]["request"]).parent_redemption
    assert parent is not None
    rollback = {"op": "rollback_redemption", "args": {"redemption_id": parent.id, "request": {"reason": "returned"}}}
    run = _run(tmp_path, demo, [LINES[1], rollback])
    assert run.report.differences.empty, run.report.text()
    assert list(run.report.lines["real_status"]) == [200, 200]


def test_a_planted_change_is_found_and_only_there(tmp_path: Path, demo: dict[str, Any]) -> None:
    changed = copy.deepcopy(demo)
    tier = next(t for c in changed["campaigns"] for t in c.get("tiers") or [] if t["id"] == "promo_welcome_10")
    tier["discount"]["amount_off"] = 1200
    run = _run(tmp_path, changed, LINES)
    found = run.report.differences
    assert set(found["line"]) == {1, 3}  # the validation and the qualification, not the redemption (no tier in it)
    amounts = found[found["money"]]
    assert not amounts.empty and set(amounts["difference"].abs()) == {200}  # discounts -$2.00, totals +$2.00
