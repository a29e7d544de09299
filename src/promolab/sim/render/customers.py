"""Customer records -> the customer object of publications and events."""

from __future__ import annotations

from typing import Any

from ... import models
from ..fast_validate import validated
from ..records import Customer

__all__ = ["customer_body", "render_customer"]


def render_customer(record: Customer) -> models.Customer:
    return validated(models.Customer, customer_body(record))


def customer_body(record: Customer) -> dict[str, Any]:
    """The customer object as data, for a response that embeds it: validating
    it once as part of the response gives the same model as `render_customer`."""
    fields = record.__dict__  # the record's fields, read at once (attribute reads cost ~5x)
    return {
        "id": fields["id"],
        "name": fields["name"],
        "email": fields["email"],
        "source_id": fields["source_id"],
        "metadata": fields["metadata"],
        "object": "customer",
    }
