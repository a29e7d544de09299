"""Checked by mypy in `test_static_types.py`, never imported: calls the type
checker must refuse (each line marked with the error it must report)."""

from typing import Any

import httpx

from promolab import AsyncClient, Client, Simulator, models
from promolab.analysis.sweep import sweep
from promolab.models import endpoints
from promolab.shadow import Target, shadow
from promolab.sim.operation import bind
from promolab.sim.operations.incentives import GET_INCENTIVE


def wrong(client: Client, sim: Simulator) -> None:
    client.get_incentive(incentive="linc_1")  # E: call-arg
    client.purchase_reward("prog", "member")  # E: call-arg
    sim.apply(GET_INCENTIVE, incentive="linc_1")  # E: call-arg
    sim.apply(GET_INCENTIVE, incentive_id=7)  # E: arg-type


def as_dict(sim: Simulator, *, request: Any) -> dict[str, Any]:
    return {}


def another_model(sim: Simulator, *, request: Any) -> models.Incentive:
    raise NotImplementedError


# An operation is held to its endpoint's response model where it is bound.
bind(endpoints.VALIDATE, as_dict, write=False)  # E: arg-type
bind(endpoints.VALIDATE, another_model, write=False)  # E: arg-type


def wrong_options() -> None:
    Client("https://api.example.test", app_id="a", app_token="t", timeot=3)  # E: call-arg
    Client("https://api.example.test", app_id="a")  # E: call-arg
    Client("https://api.example.test", app_id="a", app_token="t", http_client=httpx.AsyncClient())  # E: arg-type
    AsyncClient("https://api.example.test", app_id="a", app_token="t", http_client=httpx.Client())  # E: arg-type


def wrong_sweep_and_shadow(sim: Simulator, orders: Any, target: Target) -> None:
    sweep(sim, orders, progres=False)  # E: call-arg
    sweep(sim, orders, chunk_size="7")  # E: arg-type
    shadow("script.jsonl", scenario="demo.yaml")  # E: call-arg
    shadow("script.jsonl", target=target, allow_write=True)  # E: call-arg
