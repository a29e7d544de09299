"""Customers as the service shows them, and the customer references requests carry.

Responses only promise ``id, name, email, source_id, metadata, object``; the summary,
loyalty and referral blocks of a real deployment pass through as extra fields. The
shown fields are always sent, ``null`` when unknown (a customer created from a bare
``source_id`` has no name or email: the webhook example shows ``"email": null``).
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, model_validator

from ._base import RequestModel, WireModel, require_one_of
from .common import Metadata

__all__ = ["Customer", "CustomerInput", "IdentifiedCustomerInput"]


class Customer(WireModel):
    id: str = Field(min_length=1)
    name: str | None = None
    email: str | None = None
    source_id: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    object: Literal["customer"] = "customer"


class CustomerInput(RequestModel):
    """A customer named in a request; the service creates it when it does not exist.

    Besides the fields the interface shows, the real service's customer fields
    (phone, address, birthday/birthdate, description) are accepted so that
    requests written for a real deployment work unchanged; anything else is
    refused, which catches typos such as ``Name``.
    """

    __omit_if_none__ = frozenset(
        {"id", "source_id", "name", "email", "metadata", "phone", "address", "birthday", "birthdate", "description"}
    )

    id: str | None = Field(default=None, min_length=1)
    source_id: str | None = Field(default=None, min_length=1)
    name: str | None = None
    email: str | None = None
    metadata: Metadata | None = None
    phone: str | None = None
    address: dict[str, Any] | None = None
    birthday: str | None = None
    birthdate: str | None = None
    description: str | None = None


class IdentifiedCustomerInput(CustomerInput):
    """A customer reference that must say who: ``id``, ``source_id`` or both."""

    @model_validator(mode="after")
    def _has_identifier(self) -> Self:
        require_one_of(self, "id", "source_id")
        return self
