"""The three operations of the spine, through the HTTP face.

GET /v2/loyalties/incentives/{id}, DELETE /v2/loyalties/rewards/{id} and
DELETE /management/v1/projects/{projectId}/webhooks/{webhookId}, with the
typed client (`sim.client()`) and with raw httpx where the bytes matter.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from demo_keys import BASE, LOYALTY, MANAGEMENT
from promolab import ApiError, Simulator, models
from promolab.http import SimulatorTransport
from promolab.sim.operations.incentives import GET_INCENTIVE

INCENTIVE_ID = re.compile(r"^linc_[a-f0-9]+$")
START = "2026-03-06T10:00:00.000Z"

DETAIL_OF = {
    "POINTS": "points",
    "POINTS_PROPORTIONAL": "points_proportional",
    "MATERIAL": "material",
    "DIGITAL": "digital",
}


def api_error(call: Any, *args: Any) -> ApiError:
    with pytest.raises(ApiError) as info:
        call(*args)
    return info.value


# -- GET incentive ---------------------------------------------------------------


def test_demo_covers_all_four_incentive_shapes(sim: Simulator) -> None:
    assert {i.type for i in sim.state.incentives.values()} == set(DETAIL_OF)


def test_every_demo_incentive_renders_with_exactly_its_detail(sim: Simulator, http: httpx.Client) -> None:
    for incentive_id, record in sim.state.incentives.items():
        response = http.get(f"{BASE}/v2/loyalties/incentives/{incentive_id}", headers=LOYALTY)
        assert response.status_code == 200
        body = response.json()
        detail = DETAIL_OF[record.type]
        assert body[detail] == getattr(record, detail)
        assert not set(DETAIL_OF.values()) - {detail} & set(body), body  # no other detail object
        assert {k: body[k] for k in ("id", "name", "type", "status", "stock", "object")} == {
            "id": incentive_id, "name": record.name, "type": record.type, "status": record.status,
            "stock": record.stock, "object": "incentive",
        }
        assert body["created_at"] == START
        assert body["updated_at"] is None  # never updated: present as null


@pytest.mark.parametrize(
    ("incentive_id", "expected"),
    [
        ("linc_0a11ce01", {"value": 50, "card_definition_id": "lcdef_beans"}),
        ("linc_0a11ce02", {"calculation_type": "ORDER_METADATA_VALUE", "card_definition_id": "lcdef_beans",
                           "order": {"metadata": {"every": 100, "value": 1, "property": "amount"}}}),
        ("linc_0a11ce04", {"product": {"id": "prod_mug"}}),
        ("linc_0a11ce06", {"sku": {"product_id": "prod_beans_ethiopia", "id": "sku_ethiopia_1000"}}),
        ("linc_0a11ce05", {"gift_vouchers": {"campaign_id": "camp_gift", "balance": 2500}}),
        ("linc_0a11ce07", {"discount_coupons": {"campaign_id": "camp_newsletter"}}),
    ],
)
def test_typed_client_returns_the_incentive_model(sim: Simulator, incentive_id: str, expected: dict[str, Any]) -> None:
    with sim.client() as client:
        incentive = client.get_incentive(incentive_id)
    assert isinstance(incentive, models.Incentive)
    assert incentive.id == incentive_id
    detail = getattr(incentive, DETAIL_OF[str(incentive.type)])
    assert detail.model_dump(mode="json") == expected
    assert incentive == sim.apply(GET_INCENTIVE, incentive_id=incentive_id)  # HTTP face == direct call


@pytest.mark.parametrize("bad_id", ["linc_XYZ", "linc_", "LINC_0a11ce01", "lrew_mug", "linc_0a11ce01 ", "linc_0g", "0a11ce01"])
def test_id_breaking_the_pattern_is_400(sim: Simulator, bad_id: str) -> None:
    exc = api_error(sim.client().get_incentive, bad_id)
    assert exc.status == 400
    assert exc.error.key == "invalid_payload"
    assert "^linc_[a-f0-9]+$" in (exc.error.details or "")


def test_unknown_incentive_is_404_naming_it(sim: Simulator) -> None:
    exc = api_error(sim.client().get_incentive, "linc_ffffffff")
    assert exc.status == 404
    body = exc.error.model_dump(mode="json")
    assert body.pop("request_id").startswith("v-")
    assert body == {
        "code": 404, "key": "not_found", "message": "Resource not found",
        "details": "Cannot find incentive with id linc_ffffffff",
        "resource_id": "linc_ffffffff", "resource_type": "incentive",
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30).filter(lambda s: s not in (".", "..")))
@example("linc_0a11ce01\n")  # `$` must not match before a trailing newline
@example("linc_abc")
def test_get_incentive_answers_200_404_or_400_by_pattern(sim: Simulator, incentive_id: str) -> None:
    """For any id: known -> 200, well-formed but unknown -> 404, else 400.
    Reading never changes the state."""
    before = sim.dump_json()
    with httpx.Client(transport=SimulatorTransport(sim)) as http:
        response = http.get(f"{BASE}/v2/loyalties/incentives/{quote(incentive_id, safe='')}", headers=LOYALTY)
    if incentive_id in sim.state.incentives:
        assert response.status_code == 200
    elif INCENTIVE_ID.fullmatch(incentive_id):
        assert response.status_code == 404
        assert response.json()["resource_id"] == incentive_id
    else:
        assert response.status_code == 400
        assert response.json()["key"] == "invalid_payload"
    assert sim.dump_json() == before


# -- DELETE reward ------------------------------------------------------------------


def test_deleting_an_unassigned_reward_marks_it_deleted_and_keeps_it(sim: Simulator) -> None:
    client = sim.client()
    sim.advance(90)
    reward = client.delete_reward("lrew_retired")
    assert isinstance(reward, models.Reward)
    assert reward.status == "DELETED"
    assert reward.id == "lrew_retired" and reward.name == "Retired tasting flight"
    assert reward.updated_at == sim.now
    assert reward.material is not None and reward.material.product is not None
    # Still there, still readable: the state keeps it, a second delete returns it.
    assert sim.state.rewards["lrew_retired"].status == "DELETED"
    assert client.delete_reward("lrew_retired") == reward


def test_deleting_twice_is_harmless_and_returns_the_same_reward(sim: Simulator, http: httpx.Client) -> None:
    url = f"{BASE}/v2/loyalties/rewards/lrew_retired"
    first = http.delete(url, headers=LOYALTY)
    sim.advance(3600)
    dump = sim.dump_json()
    second = http.delete(url, headers=LOYALTY)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content  # byte for byte: updated_at is the first deletion's
    assert first.json()["updated_at"] == START
    assert sim.dump_json() == dump


@pytest.mark.parametrize(
    ("reward_id", "assignments"),
    [
        ("lrew_mug", ["lrewa_mug", "lrewa_legacy_mug"]),
        ("lrew_gift_25", ["lrewa_gift"]),
        ("lrew_sticker", ["lrewa_sticker"]),
    ],
)
def test_deleting_an_assigned_reward_is_400_resource_in_use(
    sim: Simulator, http: httpx.Client, reward_id: str, assignments: list[str]
) -> None:
    before = sim.dump_json()
    response = http.delete(f"{BASE}/v2/loyalties/rewards/{reward_id}", headers=LOYALTY)
    assert response.status_code == 400
    body = response.json()
    assert body["key"] == "resource_in_use"
    assert body["code"] == 400
    assert body["related_object_ids"] == assignments
    assert body["related_object_type"] == "reward_assignment"
    assert body["related_object_total"] == len(assignments)
    assert reward_id in body["details"]
    assert sim.dump_json() == before
    # The typed client carries the related_object_* fields too.
    exc = api_error(sim.client().delete_reward, reward_id)
    assert (exc.status, exc.error.related_object_ids, exc.error.related_object_total) == (400, assignments, len(assignments))


def test_deleting_an_unknown_reward_is_404(sim: Simulator) -> None:
    exc = api_error(sim.client().delete_reward, "lrew_nope")
    assert exc.status == 404
    assert (exc.error.key, exc.error.resource_type, exc.error.resource_id) == ("not_found", "reward", "lrew_nope")
    assert exc.error.details == "Cannot find reward with id lrew_nope"


# -- DELETE webhook ----------------------------------------------------------------


def test_deleting_a_webhook_is_204_with_no_body(sim: Simulator, http: httpx.Client) -> None:
    response = http.delete(f"{BASE}/management/v1/projects/proj_kestrel/webhooks/wh_crm", headers=MANAGEMENT)
    assert response.status_code == 204
    assert response.content == b""
    assert "content-type" not in response.headers
    assert sim.state.webhooks["wh_crm"].status == "DELETED"
    assert sim.state.webhooks["wh_notebook"].status == "ACTIVE"


def test_typed_delete_webhook_returns_none_and_the_second_delete_is_404(sim: Simulator) -> None:
    client = sim.client()
    assert client.delete_webhook("proj_kestrel", "wh_notebook") is None
    dump = sim.dump_json()
    exc = api_error(client.delete_webhook, "proj_kestrel", "wh_notebook")
    assert exc.status == 404
    assert (exc.error.key, exc.error.resource_type, exc.error.resource_id) == ("not_found", "webhook", "wh_notebook")
    assert sim.dump_json() == dump


@pytest.mark.parametrize(
    ("project", "webhook", "resource_type", "resource_id"),
    [
        ("proj_other", "wh_crm", "project", "proj_other"),
        ("proj_kestrel", "wh_nope", "webhook", "wh_nope"),
        ("proj_other", "wh_nope", "project", "proj_other"),
    ],
)
def test_deleting_in_an_unknown_project_or_an_unknown_webhook_is_404(
    sim: Simulator, project: str, webhook: str, resource_type: str, resource_id: str
) -> None:
    before = sim.dump_json()
    exc = api_error(sim.client().delete_webhook, project, webhook)
    assert exc.status == 404
    assert (exc.error.key, exc.error.resource_type, exc.error.resource_id) == ("not_found", resource_type, resource_id)
    assert sim.dump_json() == before


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {**MANAGEMENT, "X-Management-Token": "nope"},
        {**MANAGEMENT, "X-Management-Id": "nope"},
        {"X-Management-Id": "kestrel-management"},
        LOYALTY,
    ],
    ids=["none", "wrong-token", "wrong-id", "id-only", "app-credentials"],
)
def test_deleting_a_webhook_with_wrong_management_credentials_is_the_exact_401(
    sim: Simulator, http: httpx.Client, headers: dict[str, str]
) -> None:
    before = sim.dump_json()
    response = http.delete(f"{BASE}/management/v1/projects/proj_kestrel/webhooks/wh_crm", headers=headers)
    assert response.status_code == 401
    body = response.json()
    assert body.pop("request_id").startswith("v-")
    assert body == {"code": 401, "message": "Unauthorized", "key": "unauthorized"}
    assert sim.dump_json() == before


def test_typed_client_with_a_wrong_management_token_raises_401(sim: Simulator) -> None:
    from promolab import Client

    creds = sim.state.project.credentials
    client = Client(BASE, app_id=creds.app_id, app_token="x", management_id=creds.management_id,
                    management_token="wrong", transport=SimulatorTransport(sim))
    exc = api_error(client.delete_webhook, "proj_kestrel", "wh_crm")
    assert exc.status == 401
    assert exc.error.model_dump(exclude={"request_id"}) == {"code": 401, "message": "Unauthorized", "key": "unauthorized"}
    assert sim.state.webhooks["wh_crm"].status == "ACTIVE"


def test_a_deleted_webhook_loses_its_pending_deliveries(sim: Simulator) -> None:
    from datetime import timedelta

    from promolab.sim.records import PendingDelivery

    for hook in ("wh_crm", "wh_notebook"):
        sim.state.pending_deliveries.append(PendingDelivery(
            sendout_id=f"whs_{hook}", webhook_id=hook, event_type="EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED",
            body="{}", first_attempt_at=sim.now, next_attempt_at=sim.now + timedelta(minutes=1), attempt=1,
        ))
    sim.client().delete_webhook("proj_kestrel", "wh_crm")
    assert [p.webhook_id for p in sim.state.pending_deliveries] == ["wh_notebook"]
