"""`--history`: the orders and redemptions since a date, as the frames the analysis layer reads.

The frames must say exactly what the simulator recorded (every order line,
every parent, child and rollback, each child's own discount), only what is
at or after the date, and a list longer than its pages reach is read on from
its last instant (`Window`).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis.orders import line_columns
from promolab.cli import main
from promolab.models import read_endpoints as reads
from promolab.models.endpoint import Endpoint, Param
from promolab.models.list_params import instant_param, order_param
from promolab.models.project_rewards import ProjectRewardList
from promolab.pull import (
    ORDER_COLUMNS,
    REDEMPTION_COLUMNS,
    Limits,
    PullError,
    PullOptions,
    Reader,
    pull,
    walk,
)
from promolab.pull.walk import Window
from pull_support import SCENARIOS, target_of


def _busy() -> Simulator:
    """The demo project after three days of redemptions, one of them rolled back."""
    sim = Simulator.from_scenario(SCENARIOS / "demo.yaml")
    with sim.client() as client:
        client.redeem_stacked(customer={"source_id": "alice"},
                              order={"items": [{"product_id": "prod_beans_ethiopia", "quantity": 2}]},
                              redeemables=[{"object": "voucher", "id": "WELCOME-ALICE"},
                                           {"object": "promotion_tier", "id": "promo_beans_15"}])
        sim.advance(timedelta(days=1))
        made = client.redeem_stacked(customer={"source_id": "bob"},
                                     order={"items": [{"product_id": "prod_beans_colombia", "quantity": 1},
                                                      {"product_id": "prod_mug", "quantity": 1}]},
                                     redeemables=[{"object": "promotion_tier", "id": "promo_beans_15"}])
        sim.advance(timedelta(days=1))
        client.rollback_redemption(made.redemptions[0].id, reason="returned")  # one redeemable: no parent
        client.redeem_stacked(customer={"source_id": "alice"},
                              order={"items": [{"sku_id": "sku_ethiopia_1000", "quantity": 1}]},
                              redeemables=[{"object": "promotion_tier", "id": "promo_beans_15"}])
    return sim


def made_on_day_two(sim: Simulator) -> str:
    return next(r.id for r in sim.state.redemptions.values() if r.date.day == 7)


def test_the_history_frames_hold_what_was_redeemed(tmp_path: Path) -> None:
    sim = _busy()
    pulled = pull(target_of(sim), tmp_path / "ours.yaml", PullOptions(history_since=datetime(2026, 1, 1, tzinfo=UTC)))
    assert pulled.history is not None
    orders, redemptions = pulled.history.orders, pulled.history.redemptions
    assert list(orders.columns) == ORDER_COLUMNS and list(redemptions.columns) == REDEMPTION_COLUMNS
    assert orders["order_id"].nunique() == len(sim.state.orders) == 3
    assert orders["placed_at"].is_monotonic_increasing  # oldest first
    assert orders[["product_id", "sku_id", "quantity", "price", "customer_source_id"]].astype(object).where(
        orders[["product_id", "sku_id", "quantity", "price", "customer_source_id"]].notna(), None
    ).values.tolist() == [
        ["prod_beans_ethiopia", None, 2, 1800, "alice"],
        ["prod_beans_colombia", None, 1, 1600, "bob"], ["prod_mug", None, 1, 1200, "bob"],
        ["prod_beans_ethiopia", "sku_ethiopia_1000", 1, 6200, "alice"],  # a SKU line names its product too
    ]
    assert str(orders["price"].dtype) == "Int64" and str(redemptions["discount_amount"].dtype) == "Int64"
    assert line_columns(orders).placed_at.size == 3  # the analysis layer reads it as dated orders
    assert len(redemptions) == len(sim.state.redemptions) + len(sim.state.rollbacks)
    made = redemptions[redemptions["object"] == "redemption"]
    parents = made[made["redeemable_type"] == "redemption"]
    children = made[made["parent_id"].notna()]
    assert len(parents) == 1 and set(children["parent_id"]) == set(parents["redemption_id"])
    assert children["discount_amount"].sum() == parents["discount_amount"].iloc[0] == 1040  # each child's own
    assert sorted(children["redeemable_id"]) == ["WELCOME-ALICE", "promo_beans_15"]
    singles = made[made["parent_id"].isna() & (made["redeemable_type"] != "redemption")]
    assert singles["redeemable_id"].tolist() == ["promo_beans_15", "promo_beans_15"]
    assert redemptions.loc[redemptions["object"] == "redemption_rollback", "rolls_back"].tolist() == [
        made_on_day_two(sim)]


def test_only_what_is_at_or_after_the_date_is_read(tmp_path: Path) -> None:
    sim = _busy()
    second_day = datetime(2026, 3, 7, 10, 0, tzinfo=UTC)
    pulled = pull(target_of(sim), tmp_path / "ours.yaml", PullOptions(history_since=second_day))
    assert pulled.history is not None
    assert pulled.history.orders["order_id"].nunique() == 2
    assert (pulled.history.orders["placed_at"] >= pd.Timestamp(second_day)).all()
    assert (pulled.history.redemptions["at"] >= pd.Timestamp(second_day)).all()
    assert len(pulled.history.redemptions) == 3  # bob's redemption, its rollback, alice's third


def _many_orders(count: int) -> Simulator:
    """The demo project after `count` orders, a minute apart, each redeeming the beans tier
    (every fifth a stacked redemption of two redeemables, some single ones rolled back)."""
    sim = Simulator.from_scenario(SCENARIOS / "demo.yaml")
    with sim.client() as client:
        for n in range(count):
            redeemables = [{"object": "promotion_tier", "id": "promo_beans_15"}]
            if n % 5 == 0:
                redeemables.append({"object": "promotion_tier", "id": "promo_mug_3"})
            made = client.redeem_stacked(customer={"source_id": ("alice", "bob")[n % 2]},
                                         order={"items": [{"product_id": "prod_beans_ethiopia", "quantity": 1 + n % 3},
                                                          {"product_id": "prod_mug", "quantity": 1}]},
                                         redeemables=redeemables)
            if n % 7 == 3 and n % 5:  # a single redemption: no parent
                client.rollback_redemption(made.redemptions[0].id, reason="returned")
            sim.advance(timedelta(minutes=1))
    return sim


def test_orders_past_the_lists_reach_are_read_from_their_redemptions(tmp_path: Path) -> None:
    """Differential: the orders list read by its pages, and the same history with the pages' reach
    shrunk below it (2 pages of 100), where the orders come from the redemptions: the same frames
    but for `status`, which a redemption's order does not show."""
    sim = _many_orders(230)
    since = datetime(2026, 1, 1, tzinfo=UTC)
    by_pages = pull(target_of(sim), tmp_path / "pages.yaml", PullOptions(history_since=since)).history
    shrunk = PullOptions(history_since=since, limits=Limits(max_pages=2))
    by_redemptions = pull(target_of(sim), tmp_path / "redemptions.yaml", shrunk).history
    assert by_pages is not None and by_redemptions is not None
    assert by_pages.orders["order_id"].nunique() == len(sim.state.orders) == 230
    assert set(by_pages.orders["status"]) == {"PAID", "CANCELED"}  # a rolled back order is canceled
    assert by_redemptions.orders["status"].isna().all()
    pd.testing.assert_frame_equal(by_redemptions.orders.drop(columns="status"),
                                  by_pages.orders.drop(columns="status"))
    pd.testing.assert_frame_equal(by_redemptions.redemptions, by_pages.redemptions)
    with pytest.raises(PullError, match="more than its pages reach"):  # without the history's other source
        walk(Reader(target_of(sim), limits=Limits(max_pages=2)), reads.LIST_ORDERS)


def test_the_cli_writes_the_history_beside_the_scenario(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pull", "--target", "http://127.0.0.1:9", "--out", str(tmp_path / "p.yaml"),
                 "--history", "March"]) == 2
    assert "--history: 'March' is not a date" in capsys.readouterr().err


# A list of 2 pages of 3 at most (the rewards list's model), read on from its last instant.
_SMALL = Endpoint("list_small", "GET", "/v1/small", "app", "listSmall", "a small list", ProjectRewardList,
                  query=(Param("limit", "limit", "integer", minimum=1, maximum=3),
                         Param("page", "page", "integer", minimum=1, maximum=2), order_param("created_at"),
                         instant_param("created_at[after]", "created_after", "at or after")))


def _rewards(times: list[int]) -> list[dict[str, object]]:
    return [{"id": f"rew_{n}", "name": f"reward {n}", "type": "COIN", "object": "reward",
             "created_at": (datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=t)).isoformat()}
            for n, t in enumerate(times)]


def _small_list(times: list[int]) -> httpx.MockTransport:
    everything = _rewards(times)

    def answer(request: httpx.Request) -> httpx.Response:
        after = request.url.params.get("created_at[after]")
        rows = [r for r in everything
                if after is None or datetime.fromisoformat(str(r["created_at"])) >= datetime.fromisoformat(after)]
        page, limit = int(request.url.params["page"]), int(request.url.params["limit"])
        return httpx.Response(200, content=json.dumps({"object": "list", "data_ref": "data", "total": len(rows),
                                                       "data": rows[(page - 1) * limit:page * limit]}))

    return httpx.MockTransport(answer)


@pytest.mark.parametrize("times", [list(range(20)), [0, 0, 1, 1, 1, 2, 3, 3, 4, 5, 5, 5, 6]])
def test_a_window_reads_on_past_the_last_page(times: list[int], demo: Simulator) -> None:
    reader = Reader(target_of(demo, _small_list(times)))
    read = walk(reader, _SMALL, window=Window("created_at[after]", lambda r: r.created_at))
    assert [r.id for r in read] == [f"rew_{n}" for n in range(len(times))]
    with pytest.raises(PullError, match=r"more than its pages reach \(2 pages of 3\)"):
        walk(Reader(target_of(demo, _small_list(times))), _SMALL)


def test_a_window_refuses_more_objects_at_one_instant_than_its_pages_reach(demo: Simulator) -> None:
    reader = Reader(target_of(demo, _small_list([0, 1, 1, 1, 1, 1, 1, 1, 2])))
    with pytest.raises(PullError, match="more than 6 objects at 2026-01-01T00:01:00.000Z"):
        walk(reader, _SMALL, window=Window("created_at[after]", lambda r: r.created_at))
