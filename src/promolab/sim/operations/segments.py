"""Reading customer segments: the segments of one customer, one segment by id.

The simulator's segments are static lists of customer ids (what audience
rules test); a customer's list holds them in the state's order, unpaged, as
the service documents it (no query parameters).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import models
from ...models import read_endpoints
from ..fast_validate import validated
from ..operation import bind
from ..refusals import NotFound

if TYPE_CHECKING:
    from ..simulator import Simulator


def list_customer_segments(sim: Simulator, *, customer_id: str) -> models.CustomerSegmentList:
    """The customer is found by id or source id; an unknown one is 404, not an empty list."""
    customers = sim.state.customers
    customer = customers.get(customer_id) or next(
        (c for c in customers.values() if c.source_id == customer_id), None
    )
    if customer is None:
        raise NotFound("customer", customer_id)
    data = [{"id": s.id, "name": s.name, "object": "segment"}
            for s in sim.state.segments.values() if customer.id in s.customers]
    return validated(models.CustomerSegmentList,
                     {"object": "list", "data_ref": "data", "data": data, "total": len(data)})


def get_segment(sim: Simulator, *, segment_id: str) -> models.Segment:
    record = sim.state.segments.get(segment_id)
    if record is None:
        raise NotFound("segment", segment_id)
    return validated(models.Segment, {"id": record.id, "name": record.name, "type": "static", "filter": None,
                                      "object": "segment"})


LIST_CUSTOMER_SEGMENTS = bind(read_endpoints.LIST_CUSTOMER_SEGMENTS, list_customer_segments, write=False)
GET_SEGMENT = bind(read_endpoints.GET_SEGMENT, get_segment, write=False)

#: This family's operations, in the order of `read_endpoints.READS`.
READS = (LIST_CUSTOMER_SEGMENTS, GET_SEGMENT)
