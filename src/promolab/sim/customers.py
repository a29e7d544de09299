"""Customers a request names: found by `id` and/or `source_id`, or created.

A publication and a custom event name their customer the same way:
`find_customer` resolves a request's `{id, source_id}`; an unknown `id` is
404, an unknown `source_id` means "create it" (`create_customer`, which keeps
name, email and metadata). An existing customer is not updated by a
publication or an event. Shared by publishing (`operations.publishing`) and
custom events (`operations.custom_events`), which find the customer before
their rules run and create it only once every rule passed.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from .records import Customer
from .refusals import BadRequest, NotFound

if TYPE_CHECKING:
    from ..models import CustomerInput
    from .simulator import Simulator

__all__ = ["create_customer", "find_customer"]


def find_customer(sim: Simulator, ref: CustomerInput) -> Customer | None:
    """The customer a request names by `id` and/or `source_id`, or None when
    only a `source_id` is given and nobody has it yet (the caller creates it).

    Unknown `id`: 404. An `id` and a `source_id` that name two different
    customers (or a customer whose source_id is another one): 400
    `invalid_customer`.
    """
    st = sim.state
    cid = ref.id
    source_id = ref.source_id
    if cid is not None:
        customer = st.customers.get(cid)
        if customer is None:
            raise NotFound("customer", cid)
        if source_id is not None and customer.source_id != source_id:
            owner = sim.indexes.customer_by_source.get(source_id)
            if customer.source_id is not None or owner is not None:
                raise BadRequest(
                    f"Customer {cid} does not have source_id {source_id!r}",
                    key="invalid_customer",
                    message="Invalid customer",
                    resource_id=cid,
                    resource_type="customer",
                )
        return customer
    if source_id is None:
        raise BadRequest(
            "Customer should have at least one of the properties 'id' or 'source_id'",
            key="invalid_payload",
            message="Invalid payload",
        )
    existing = sim.indexes.customer_by_source.get(source_id)
    return None if existing is None else st.customers[existing]


def create_customer(sim: Simulator, ref: CustomerInput) -> Customer:
    """A new customer from a request's customer object (source_id required),
    with its name, email and a copy of its metadata (the stored customer
    shares nothing with the request body)."""
    source_id = ref.source_id
    if source_id is None:  # find_customer lets only a source_id through to creation
        raise ValueError("a customer is created from its source_id")
    customer = Customer(
        id=sim.ids.next("customer"),
        source_id=source_id,
        name=ref.name,
        email=ref.email,
        metadata=copy.deepcopy(ref.metadata) if ref.metadata else {},
        created_at=sim.now,
    )
    sim.state.customers[customer.id] = customer
    sim.indexes.customer_by_source[source_id] = customer.id
    return customer
