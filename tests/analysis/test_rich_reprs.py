"""Rich reprs: what a notebook cell ending with a result shows.

Each result has a one-line `__repr__` (no frame dumped, no object address)
and a `_repr_html_` that is well-formed HTML whose tables hold the same
figures the result's own summaries give, money through `promolab.display`
in the result's currency.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

from promolab import Simulator, samples, with_changes
from promolab.analysis import compare_scenarios, compare_stacking_policies, forecast, sweep
from promolab.analysis.forecast.result_summary import budget_rows
from promolab.display import format_count, format_money, format_share
from promolab.replay import replay
from promolab.rich_summary import MAX_ROWS, Summary, Table

DEMO = Path(__file__).resolve().parents[2] / "data" / "scenarios" / "demo.yaml"


def parse(html: str) -> ET.Element:
    """The HTML as XML: strict, so an unescaped `<` or `&`, or an unclosed tag, fails."""
    return ET.fromstring(html)


def tables(html: str) -> dict[str, list[list[str]]]:
    """Each table's rows of cell text, by caption (the facts table by its title)."""
    out = {}
    for table in parse(html).iter("table"):
        caption = "".join(table.find("caption").itertext())  # type: ignore[union-attr]  # every table has one
        out[caption] = [["".join(cell.itertext()) for cell in row] for row in table.iter("tr")]
    return out


def facts(html: str, title: str) -> dict[str, str]:
    return {label: value for label, value in tables(html)[title]}


def one_line(text: str) -> None:
    assert "\n" not in text and " at 0x" not in text and len(text) < 300, text


@pytest.fixture(scope="module")
def month() -> pd.DataFrame:
    orders = pd.read_parquet(samples.month_orders())
    return orders[orders["order_id"].isin(orders["order_id"].unique()[:1500])]


def test_simulator(sim: Simulator) -> None:
    one_line(repr(sim))
    html = sim._repr_html_()
    shown = facts(html, "Simulator")
    assert shown["project"] == "proj_kestrel (Kestrel Coffee Roasters)"
    assert shown["clock"] == "2026-03-06T10:00:00.000Z"
    held = dict(map(tuple, tables(html)["what it holds"][1:]))  # type: ignore[arg-type]  # rows of two cells
    assert held["campaigns"] == str(len(sim.state.campaigns)) == "13"
    assert held["customers"] == str(len(sim.state.customers))
    assert "redemptions (stacked)" not in held  # nothing of it yet: not listed


def test_sweep(sim: Simulator) -> None:
    orders = pd.read_parquet(samples.sample_orders()).head(200)
    result = sweep(sim, orders)
    one_line(repr(result))
    html = result._repr_html_()
    assert facts(html, "SweepResult")["orders x tiers"] == f"{result.n_orders} x {len(result.tier_ids)}"
    rows = tables(html)["per tier"]
    expected = result.summary_table()
    assert rows[0] == list(expected.columns)
    assert rows[1:] == expected.astype(str).to_numpy().tolist()
    cost = result.summary().set_index("tier_id").loc["promo_welcome_10", "cost"]
    welcome = next(r for r in rows if r[0] == "promo_welcome_10")
    assert welcome[list(expected.columns).index("cost")] == format_money(cost)


def test_sweep_money_in_the_results_currency(sim: Simulator) -> None:
    result = sweep(sim, pd.read_parquet(samples.sample_orders()).head(50))
    result.currency = "EUR"  # what a simulator of a EUR scenario gives its results
    html = result._repr_html_()
    assert facts(html, "SweepResult")["currency"] == "EUR"
    assert "€" in html and "$" not in html


def test_forecast(month: pd.DataFrame) -> None:
    sim = Simulator.from_scenario(samples.forecast_scenario())
    result = forecast(sim, month, progress=False)
    one_line(repr(result))
    assert repr(result).startswith(f"<ForecastResult {format_count(len(result.orders))} orders: ")
    html = result._repr_html_()
    shown = facts(html, "ForecastResult")
    assert shown["orders"] == format_count(len(result.orders))
    assert shown["discount"] == format_money(int(result.orders["discount"].sum()))
    found = tables(html)
    per_campaign = found["per campaign"][1:]
    summary = result.summary()
    assert [r[0] for r in per_campaign] == list(summary["campaign_id"])
    assert [r[2] for r in per_campaign] == [format_money(v) for v in summary["discount"]]
    (budgets,) = [rows for caption, rows in found.items() if caption.startswith("budgets and limits")]
    assert len(result.budgets) > 0
    assert budgets[1:] == [list(r) for r in budget_rows(result, "USD")][:MAX_ROWS]


def test_a_budget_of_money_is_money_and_one_of_redemptions_a_count(month: pd.DataFrame) -> None:
    sim = Simulator.from_scenario(samples.forecast_scenario())
    result = forecast(sim, month, progress=False)
    rows = budget_rows(result, "USD")
    assert rows  # the scenario has budgets
    for (tier, rule, limit, _used, _ran_out, _held), r in zip(rows, result.budgets.itertuples(), strict=True):
        assert tier == r.tier_id
        assert limit in (format_money(r.limit), format_count(r.limit))
    assert any(limit.startswith("$") for _, _, limit, *_ in rows)
    assert any(not limit.startswith("$") for _, _, limit, *_ in rows)


def test_replay(sim: Simulator) -> None:
    result = replay(sim, samples.demo_events("demo_day"), on_error="skip")
    one_line(repr(result))
    assert repr(result) == (f"<ReplayResult {result.lines} lines: {result.applied} applied, "
                            f"{result.refused} refused, {result.skipped} skipped>")
    html = result._repr_html_()
    assert facts(html, "ReplayResult")["lines"] == str(result.lines)
    per_op = tables(html)["per operation"][1:]
    counts = result.timeline.groupby("op", observed=True).size()
    assert {op for op, _ in per_op} == set(counts.index)
    moves = tables(html).get("largest balance moves", [])[1:]
    assert moves == [list(m) for m in result._largest_moves("USD")]
    assert result.summary().count("largest balance moves") == (1 if moves else 0)


def test_replay_errors_are_listed(sim: Simulator, tmp_path: Path) -> None:
    events = tmp_path / "bad.jsonl"
    events.write_text('{"op": "get_incentive", "args": {"incentive_id": "linc_ffff"}}\nnot json\n', encoding="utf-8")
    result = replay(sim, events, on_error="skip")
    html = result._repr_html_()
    errors = tables(html)["lines that did not apply"]
    assert errors[0] == ["line", "kind", "status", "key", "message"]
    assert [row[:2] for row in errors[1:]] == [[str(e.line), e.kind] for e in result.errors]


def test_scenario_comparison(month: pd.DataFrame) -> None:
    now = Simulator.from_scenario(samples.forecast_scenario())
    richer = Simulator.from_scenario(with_changes(samples.forecast_scenario(),
                                                  {"tiers.promo_welcome_10.discount.amount_off": 1500}))
    comparison = compare_scenarios({"now": now, "$15": richer}, month)
    one_line(repr(comparison))
    html = comparison._repr_html_()
    found = tables(html)
    totals = comparison.totals()
    assert [r[0] for r in found["per scenario"][1:]] == ["now", "$15"]
    assert [r[3] for r in found["per scenario"][1:]] == [format_money(v) for v in totals["discount"]]
    wide = comparison.campaigns()
    welcome = [r for r in found["per campaign"][1:] if r[0] == "camp_welcome"]
    assert welcome[0][1:3] == [format_money(wide.loc["camp_welcome", ("discount", n)]) for n in ("now", "$15")]
    assert welcome[0][1] != welcome[0][2]  # the change shows


STACK = [{"object": "promotion_tier", "id": "promo_beans_15"}, {"object": "voucher", "id": "WELCOME-OPEN-1"},
         {"object": "promotion_tier", "id": "promo_welcome_10"}]
#: A policy name a person typed: the HTML escapes it (parsed strictly as XML below).
POLICIES = {"all <default> & co": {}, "partial": {"redeemables_application_mode": "PARTIAL"}}


def test_stacking_comparison(sim: Simulator) -> None:
    orders = pd.read_parquet(samples.sample_orders()).head(600)
    result = compare_stacking_policies(sim, orders, STACK, POLICIES)
    one_line(repr(result))
    summary = result.summary()
    assert repr(result) == (f"<StackingComparison {format_count(len(result.order_ids))} orders x 2 policies, discount: "
                            f"all <default> & co {format_money(summary['total_discount'][0])}, "
                            f"partial {format_money(summary['total_discount'][1])}>")
    html = result._repr_html_()
    shown = facts(html, "StackingComparison")
    assert shown["orders"] == format_count(orders["order_id"].nunique())
    assert shown["policies"] == "all <default> & co, partial"
    assert shown["redeemables"] == "promo_beans_15, WELCOME-OPEN-1, promo_welcome_10"
    assert shown["priced"] == f"vectorized: {shown['orders']} orders"
    found = tables(html)
    per_policy = found["per policy"]
    assert per_policy[0][:4] == ["policy", "valid orders", "share valid", "total discount"]
    assert [r[0] for r in per_policy[1:]] == list(POLICIES)
    for row, r in zip(per_policy[1:], summary.itertuples(), strict=True):
        assert row[1:] == [format_count(r.valid_orders), format_share(r.share_valid), format_money(r.total_discount),
                           format_money(r.mean_discount), format_money(r.avg_discount_valid),
                           format_count(r.applicable), format_count(r.skipped), format_count(r.inapplicable)]
    assert per_policy[1][3] != per_policy[2][3]  # PARTIAL gives more away: the difference shows
    reasons = found["not applied, by reason"][1:]
    counts = result.reason_counts()
    assert len(counts) > 0
    assert reasons == [[str(r.policy), str(r.status), str(r.reason_key), format_count(r.redeemables)]
                       for r in counts.itertuples()][:MAX_ROWS]


def test_stacking_comparison_in_the_results_currency_and_per_order_lists(sim: Simulator) -> None:
    orders = pd.read_parquet(samples.sample_orders()).head(200)
    ids = orders["order_id"].unique()
    lists = {o: STACK[: 1 + i % 2] for i, o in enumerate(ids)}
    result = compare_stacking_policies(sim, orders, lists, POLICIES)
    result.currency = "EUR"  # what a simulator of a EUR scenario gives its comparisons
    html = result._repr_html_()
    shown = facts(html, "StackingComparison")
    assert shown["currency"] == "EUR" and shown["redeemables"] == "2 lists (per order)"
    assert "€" in html and "$" not in html and "€" in repr(result)


@pytest.mark.parametrize("text", ["<script>alert(1)</script>", "a & b", 'say "hi"'])
def test_text_is_escaped(text: str) -> None:
    html = Summary(text, [(text, text)], (Table(text, (text,), ((text,),)),)).html()
    root = parse(html)
    assert text in "".join(root.itertext())
    assert root.find(".//script") is None


def test_a_long_table_is_cut_and_says_so() -> None:
    rows = tuple((str(i),) for i in range(MAX_ROWS + 7))
    found = tables(Summary("t", [], (Table("long", ("n",), rows),)).html())["long"]
    assert len(found) == 1 + MAX_ROWS + 1
    assert found[-1] == ["... 7 more rows"]


def test_table_of_a_frame_keeps_columns_and_cells() -> None:
    frame = pd.DataFrame({"tier": ["a", "b"], "cost": ["$1.00", "-"]}, index=[5, 9])
    table = Table.of("per tier", frame)
    assert (table.header, table.rows) == (("tier", "cost"), (("a", "$1.00"), ("b", "-")))
