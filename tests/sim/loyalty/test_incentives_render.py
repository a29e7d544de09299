"""GET /v2/loyalties/incentives/{id}: every detail shape of the demo renders,
with exactly the detail object its type calls for."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from promolab import Simulator, models
from promolab.http.transport import SimulatorTransport

DETAILS = {"points", "points_proportional", "material", "digital"}

EXPECTED: dict[str, tuple[str, str, int, str, dict[str, Any]]] = {
    "linc_0a11ce01": ("POINTS", "ACTIVE", 100000, "points", {"value": 50, "card_definition_id": "lcdef_beans"}),
    "linc_0a11ce02": ("POINTS_PROPORTIONAL", "ACTIVE", 2147483647, "points_proportional", {
        "calculation_type": "ORDER_METADATA_VALUE", "card_definition_id": "lcdef_beans",
        "order": {"metadata": {"every": 100, "value": 1, "property": "amount"}},
    }),
    "linc_0a11ce03": ("POINTS_PROPORTIONAL", "ACTIVE", 2147483647, "points_proportional", {
        "calculation_type": "CUSTOMER_METADATA_VALUE", "card_definition_id": "lcdef_stars",
        "customer": {"metadata": {"every": 5, "value": 1, "property": "orders"}},
    }),
    "linc_0a11ce04": ("MATERIAL", "ACTIVE", 40, "material", {"product": {"id": "prod_mug"}}),
    "linc_0a11ce05": ("DIGITAL", "DRAFT", 10, "digital", {"gift_vouchers": {"campaign_id": "camp_gift", "balance": 2500}}),
    "linc_0a11ce06": ("MATERIAL", "ACTIVE", 0, "material", {
        "sku": {"product_id": "prod_beans_ethiopia", "id": "sku_ethiopia_1000"},
    }),
    "linc_0a11ce07": ("DIGITAL", "ACTIVE", 2147483647, "digital", {"discount_coupons": {"campaign_id": "camp_newsletter"}}),
}


def _get(sim: Simulator, incentive_id: str) -> httpx.Response:
    creds = sim.state.project.credentials
    with httpx.Client(base_url="http://promolab.local", transport=SimulatorTransport(sim), headers={
        "authorization": f"Bearer {creds.access_token.get_secret_value()}",
        "x-app-id": creds.app_id, "x-app-token": creds.app_token.get_secret_value(),
    }) as http:
        return http.get(f"/v2/loyalties/incentives/{incentive_id}")


@pytest.mark.parametrize("incentive_id", sorted(EXPECTED))
def test_incentive_detail_shapes(sim: Simulator, incentive_id: str) -> None:
    kind, status, stock, detail, value = EXPECTED[incentive_id]
    response = _get(sim, incentive_id)
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["type"], body["status"], body["stock"], body["object"]) == (
        incentive_id, kind, status, stock, "incentive",
    )
    assert body[detail] == value
    assert DETAILS & set(body) == {detail}
    assert body["created_at"] == "2026-03-06T10:00:00.000Z" and body["updated_at"] is None
    typed = sim.client().get_incentive(incentive_id)
    assert isinstance(typed, models.Incentive)
    assert typed.model_dump(mode="json") == body


def test_every_type_and_sub_shape_is_covered() -> None:
    types = {e[0] for e in EXPECTED.values()}
    assert types == {"POINTS", "POINTS_PROPORTIONAL", "MATERIAL", "DIGITAL"}
    shapes = {next(iter(e[4])) for e in EXPECTED.values() if e[3] in ("material", "digital")}
    assert shapes == {"product", "sku", "gift_vouchers", "discount_coupons"}


@pytest.mark.parametrize(("incentive_id", "status", "key"), [
    ("linc_0a11ce99", 404, "not_found"),
    ("lrew_mug", 400, "invalid_payload"),
])
def test_incentive_errors(sim: Simulator, incentive_id: str, status: int, key: str) -> None:
    response = _get(sim, incentive_id)
    assert (response.status_code, response.json()["key"]) == (status, key)
