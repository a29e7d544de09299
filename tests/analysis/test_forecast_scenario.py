"""The shipped forecast scenario is what its generator makes from the demo, and it loads."""

from __future__ import annotations

from promolab import Simulator, samples
from promolab.engine import BUDGET_FAMILIES
from script_modules import load_script


def test_the_shipped_scenario_is_a_fresh_generation() -> None:
    script = load_script("make_forecast_scenario")
    assert samples.forecast_scenario().read_text(encoding="utf-8") == script.render()


def test_it_is_the_demo_with_one_budget_rule_on_each_budgeted_tier() -> None:
    script = load_script("make_forecast_scenario")
    sim = Simulator.from_scenario(samples.forecast_scenario())
    demo = Simulator.from_scenario(samples.demo_scenario())
    assert sim.state.project.timezone == "Europe/Berlin"
    assert sim.now.isoformat() == "2026-02-28T23:00:00+00:00"
    assert set(sim.state.campaigns) == set(demo.state.campaigns)
    for tier_id in script.BUDGETS:
        rules = sim.state.tiers[tier_id].validation_rules or {}
        names = [r["name"] for k, r in rules["rules"].items() if k != "logic"]
        assert sum(n in BUDGET_FAMILIES for n in names) == 1, names
