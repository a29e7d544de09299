"""Customer records -> the customer object of publications and events."""

from __future__ import annotations

from ... import models
from ..records import Customer

__all__ = ["render_customer"]


def render_customer(record: Customer) -> models.Customer:
    return models.Customer.model_validate(
        {
            "id": record.id,
            "name": record.name,
            "email": record.email,
            "source_id": record.source_id,
            "metadata": record.metadata,
            "object": "customer",
        }
    )
