"""Publications: giving a code to a customer (endpoint ``PUBLISH``).

The interface marks ``voucher`` as required in the request, but the real service also
publishes "a code from a campaign" (``campaign``) and documents ``missing_vouchers`` for
a body with neither; so the rule here is *voucher or campaign, at least one*.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, model_validator

from ._base import RequestModel, WireModel, refuse, require_one_of
from .common import Metadata, Timestamp
from .customers import Customer, IdentifiedCustomerInput
from .vouchers import Voucher

__all__ = ["Publication", "PublishCampaign", "PublishCustomer", "PublishRequest"]


class Publication(WireModel):
    """The record of a code given to a customer."""

    __omit_if_none__ = frozenset({"tracking_id"})

    id: str = Field(min_length=1)
    object: Literal["publication"] = "publication"
    created_at: Timestamp
    customer_id: str
    #: The customer's source_id, when it has one.
    tracking_id: str | None = None
    metadata: Metadata
    #: ``API`` unless the request named a channel; custom names are kept as sent.
    channel: str
    #: Required but nullable: the merchant's own publication id, null when not given.
    source_id: str | None
    result: Literal["SUCCESS"] = "SUCCESS"
    customer: Customer
    voucher: Voucher
    vouchers_id: list[str]


class PublishCampaign(RequestModel):
    """Publish "a code from this campaign", named by name or id."""

    __omit_if_none__ = frozenset({"name", "id"})

    name: str | None = Field(default=None, min_length=1)
    id: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _named(self) -> Self:
        require_one_of(self, "name", "id")
        return self


class PublishCustomer(IdentifiedCustomerInput):
    """The receiving customer: ``id``, ``source_id`` or both (created when unknown)."""


class PublishRequest(RequestModel):
    """Publish ``voucher`` (a code), or the next free code of ``campaign`` (named by
    ``name`` or ``id``): at least one of the two. With both, the code must belong to the
    campaign (400 ``invalid_publish_params``); with neither, 400 ``missing_vouchers``.
    The interface marks ``voucher`` required; promolab also accepts a campaign instead, as
    the real service does (docs/publications-events-webhooks.md)."""

    __omit_if_none__ = frozenset({"voucher", "campaign", "source_id", "metadata", "channel"})

    voucher: str | None = Field(default=None, min_length=1)
    campaign: PublishCampaign | None = None
    customer: PublishCustomer
    source_id: str | None = Field(default=None, min_length=1)
    metadata: Metadata | None = None
    channel: str | None = Field(default=None, min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _names_something(cls, data: Any) -> Any:
        # before the fields: neither is missing_vouchers, whatever else is wrong
        if isinstance(data, dict) and data.get("voucher") is None and data.get("campaign") is None:
            refuse("missing_vouchers", "Missing vouchers", "Either Campaign or Voucher is required", "voucher")
        return data

    @model_validator(mode="after")
    def _says_what_to_publish(self) -> Self:
        require_one_of(self, "voucher", "campaign")
        return self
