"""The official SDK makes, lists and reads exports over real HTTP (`ExportsApi`).

The SDK's models parse each answer (a body they refused would raise before
any assert); its `download_export` is the service's download host's call
(`GET /v1/exports/{id}?token=...`), which the simulator serves at the
export's own `result.url` instead (docs/decisions.md, "Exports"), fetched
here with httpx.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import voucherify
from voucherify.exceptions import NotFoundException

pytestmark = pytest.mark.served


def test_an_export_made_listed_and_read_through_the_sdk(sdk: Any) -> None:
    api = voucherify.ExportsApi(sdk.client)
    made = api.create_export(voucherify.ExportsCreateRequestBody(
        exported_object="customer", parameters=voucherify.ExportsCreateRequestBodyParameters(
            fields=["id", "source_id"], order="source_id")))
    assert isinstance(made, voucherify.ExportsCreateResponseBody)
    assert (made.status, made.result, made.exported_object) == ("SCHEDULED", None, "customer")
    got = api.get_export(made.id)
    assert isinstance(got, voucherify.ExportsGetResponseBody)
    assert got.status == "DONE" and got.result is not None and got.result.url == f"/v1/exports/{made.id}/download"
    assert got.parameters is not None and got.parameters.fields == ["id", "source_id"]
    listed = api.list_exports(limit=10, order=voucherify.ParameterOrderListExports("-created_at"))
    assert isinstance(listed, voucherify.ExportsListResponseBody)
    assert (listed.total, [e.id for e in listed.exports]) == (1, [made.id])
    credentials = sdk.server.credentials
    response = httpx.get(sdk.server.base_url + got.result.url,
                         headers={"X-App-Id": credentials["app_id"], "X-App-Token": credentials["app_token"]})
    lines = response.text.split("\r\n")
    assert lines[0] == "id,source_id" and lines[1:-1] == sorted(lines[1:-1], key=lambda line: line.split(",")[1])
    with pytest.raises(NotFoundException):
        api.get_export("exp_nope")
