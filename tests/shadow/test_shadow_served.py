"""Shadow runs of the demo day between served simulators (issue 24's "done when").

Between two identical simulators (other id seeds) the report is empty; between
the demo scenario and the planted copy (conftest.perturb) it holds exactly the
planted differences, and the same report comes back from the cassette offline.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pandas as pd
import pytest

from promolab import Simulator
from promolab.cli import main
from promolab.shadow import Pace, Target, read_cassette, rediff, served_side, shadow
from promolab.shadow.sides import keys_of
from shadow_support import REAL_SEED

pytestmark = pytest.mark.served

ROOT = Path(__file__).resolve().parents[2]
DAY = ROOT / "data" / "events" / "demo_day.jsonl"
#: Tests pace fast: the sandbox's 100 calls an hour would take 30 minutes here.
FAST = Pace(1000, 1.0)

_VIP = "promotions[id=promo_vip_10pct]"
#: (line, op, path, kind) of every difference the planted changes make in the demo day.
PLANTED = {
    # 1. VIP 12% instead of 10%: Alice's cart (line 1) is priced $13.56 off there, $11.30 here.
    *((1, "validate", f"{_VIP}.{field}", "value") for field in (
        "discount.percent_off", "discount_amount", "applied_discount_amount", "order.discount_amount",
        "order.total_discount_amount", "order.applied_discount_amount", "order.total_applied_discount_amount",
        "order.total_amount",
    )),
    # 2. the mug at 450 points: Alice's purchase spends 450 (line 9); Bob, still short,
    #    is told it costs 450 (line 10: the refusal's details).
    (9, "purchase_reward", "transaction.details.points.total", "value"),
    (10, "purchase_reward", "details", "value"),
    # 3. Frank missing: his cart has no customer there (line 19, each tier's order), and his
    #    order (line 20) creates a new customer there, with none of his details.
    *((19, "validate", f"promotions[id={tier}].order.customer_id", "type")
      for tier in ("promo_free_shipping", "promo_beans_15", "promo_app_espresso")),
    (20, "track_event", "customer.id", "value"),
    (20, "track_event", "customer.name", "type"),
    (20, "track_event", "customer.email", "type"),
    *((20, "track_event", f"customer.metadata.{key}", "extra") for key in ("tier", "region", "newsletter", "orders")),
}

Serve = Callable[..., AbstractContextManager[str]]


def rows(differences: pd.DataFrame) -> set[tuple[int, str, str, str]]:
    return {(int(r.line), str(r.op), str(r.path), str(r.kind)) for r in differences.itertuples()}


def test_two_identical_simulators_differ_nowhere(serve: Serve, demo_path: Path, target_env: Callable[[str], None]) -> None:
    with serve(demo_path, "--seed", str(REAL_SEED)) as real_url, serve(demo_path) as sim_url:
        target_env(real_url)
        simulator = served_side(sim_url, keys_of(Simulator.from_scenario(demo_path)))
        run = shadow(DAY, target=Target.from_env(drive_clock=True), scenario=demo_path, simulator=simulator,
                     allow_writes=True, pace=FAST, progress=False)
    report = run.report
    assert len(report) == 0, report.differences.to_string()
    calls = report.lines.dropna(subset=["real_status"])
    assert len(calls) == 20 and (calls["real_status"] == calls["sim_status"]).all()
    # every line that creates something created it under another id on each side
    assert {real.partition("_")[0] for _, real in run.ids.pairs()} >= {"pub", "cust", "lctx", "v"}


def test_the_planted_differences_and_nothing_else(serve: Serve, demo_path: Path, perturbed_path: Path,
                                                   target_env: Callable[[str], None], tmp_path: Path,
                                                   no_target_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    cassette = tmp_path / "run.jsonl"
    with serve(perturbed_path, "--seed", str(REAL_SEED)) as real_url:
        target_env(real_url)
        run = shadow(DAY, target=Target.from_env(drive_clock=True), scenario=demo_path, cassette=cassette,
                     allow_writes=True, pace=FAST, progress=False)
    differences = run.report.differences
    assert rows(differences) == PLANTED
    assert len(differences) == len(PLANTED)
    by_path = differences.set_index("path")
    money = by_path.loc[f"{_VIP}.discount_amount"]
    assert (money["expected"], money["got"], money["difference"]) == ("1356", "1130", -226)
    assert money["shown"] == "$13.56 -> $11.30 (-$2.26)" and bool(money["money"])
    points = by_path.loc["transaction.details.points.total"]
    assert points["shown"] == "450 -> 500 (+50)" and not bool(points["money"])

    # the cassette: a header, then every line with both sides and the simulated clock
    head, exchanges = read_cassette(cassette)
    assert head["target"] == real_url and [e.line for e in exchanges] == list(range(1, 24))
    assert exchanges[12].clock == "2026-03-06T12:00:00.000Z" and exchanges[12].real.status == 200

    # offline: the same report from the cassette, with no target anywhere
    again = rediff(cassette, scenario=demo_path)
    pd.testing.assert_frame_equal(again.report.differences, differences)
    pd.testing.assert_frame_equal(again.report.lines, run.report.lines)
    html = tmp_path / "report.html"
    status = main(["shadow", "--cassette", str(cassette), "--scenario", str(demo_path), "--report", str(html),
                   "--no-progress"])
    out = capsys.readouterr().out
    assert status == 1
    assert out.startswith(run.report.text() + "\n")
    assert "23 lines compared: 5 differ, 20 difference(s)" in out
    page = html.read_text(encoding="utf-8")
    assert "promotions[id=promo_vip_10pct].discount_amount" in page and "$13.56 -&gt; $11.30 (-$2.26)" in page


def test_the_command_runs_against_a_target_from_the_environment(
    serve: Serve, demo_path: Path, perturbed_path: Path, target_env: Callable[[str], None], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cassette, out = tmp_path / "run.jsonl", tmp_path / "differences.csv"
    with serve(perturbed_path, "--seed", str(REAL_SEED)) as real_url:
        target_env(real_url)
        argv = ["shadow", "--script", str(DAY), "--scenario", str(demo_path), "--target-is-simulator",
                "--cassette", str(cassette), "--pace", "1000/1", "--out", str(out), "--no-progress"]
        assert main(argv) == 2  # the day writes: refused, nothing sent
        refused = capsys.readouterr().err
        assert "--allow-writes" in refused and "2 (publish)" in refused and "16 (delete_webhook)" in refused
        assert not cassette.exists()
        assert main([*argv, "--allow-writes"]) == 1
    printed = capsys.readouterr().out
    assert "20 difference(s)" in printed and f"cassette: {cassette}" in printed
    frame = pd.read_csv(out)
    assert {(r.line, r.op, r.path, r.kind) for r in frame.itertuples()} == PLANTED
