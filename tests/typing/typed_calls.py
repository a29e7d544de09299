"""Checked by mypy in `test_static_types.py`, never imported: what the type
checker must infer for the client's methods and `Simulator.apply`."""

from collections.abc import Awaitable
from typing import Any, assert_type

from promolab import AsyncClient, Client, Simulator, models
from promolab.sim.operations.incentives import GET_INCENTIVE
from promolab.sim.operations.qualifications import QUALIFICATIONS
from promolab.sim.operations.validation import VALIDATE


def sync_client(client: Client) -> None:
    assert_type(client.get_incentive("linc_1"), models.Incentive)
    assert_type(client.publish(voucher="CODE", join_once=True), models.Publication)
    assert_type(client.validate_promotions(order={"amount": 100}), models.ValidationResponse)
    assert_type(client.delete_webhook("proj_1", "wh_1"), None)
    assert_type(client.control.state(), dict[str, Any])


def async_client(client: AsyncClient) -> None:
    assert_type(client.get_incentive("linc_1"), Awaitable[models.Incentive])
    assert_type(client.add_gift_balance("GIFT", 500), Awaitable[models.BalanceResult])
    assert_type(client.control.advance(60), Awaitable[dict[str, Any]])


def simulator(sim: Simulator) -> None:
    assert_type(sim.apply(GET_INCENTIVE, incentive_id="linc_1"), models.Incentive)
    assert_type(sim.apply(VALIDATE, request={}), models.Rendered[models.ValidationResponse])
    assert_type(sim.apply(VALIDATE, request={}).model(), models.ValidationResponse)
    assert_type(sim.apply(QUALIFICATIONS, request={}).wire, dict[str, Any])
