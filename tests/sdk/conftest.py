"""The official `voucherify` SDK (PyPI, 6.x) configured against a served demo scenario.

One `promolab serve` per module (`served_module`), put back to the scenario's
state before each test through the control API, so every test starts from the
demo scenario and, the simulator being deterministic, draws the same ids.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import voucherify


@dataclass
class Sdk:
    """SDK API objects sharing one `ApiClient` that holds every credential:
    each operation sends only the headers of its own security scheme."""

    server: Any  # conftest.Served
    client: voucherify.ApiClient
    project_id: str

    @property
    def validations(self) -> voucherify.ValidationsApi:
        return voucherify.ValidationsApi(self.client)

    @property
    def redemptions(self) -> voucherify.RedemptionsApi:
        return voucherify.RedemptionsApi(self.client)

    @property
    def events(self) -> voucherify.EventsApi:
        return voucherify.EventsApi(self.client)

    @property
    def vouchers(self) -> voucherify.VouchersApi:
        return voucherify.VouchersApi(self.client)

    @property
    def management(self) -> voucherify.ManagementApi:
        return voucherify.ManagementApi(self.client)

    @property
    def qualifications(self) -> voucherify.QualificationsApi:
        return voucherify.QualificationsApi(self.client)


def sdk_configuration(base_url: str, credentials: dict[str, str]) -> voucherify.Configuration:
    """The SDK's `Configuration` for a promolab server: its host and the
    scenario's app and management keys, under the SDK's security scheme names."""
    return voucherify.Configuration(host=base_url, api_key={
        "X-App-Id": credentials["app_id"],
        "X-App-Token": credentials["app_token"],
        "X-Management-Id": credentials["management_id"],
        "X-Management-Token": credentials["management_token"],
    })


@pytest.fixture
def sdk(served_module: Any, _demo_document: dict[str, Any]) -> Iterator[Sdk]:
    served_module.reset()
    with voucherify.ApiClient(sdk_configuration(served_module.base_url, served_module.credentials)) as client:
        yield Sdk(served_module, client, _demo_document["project"]["id"])
