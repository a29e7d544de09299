"""The query parameters every list of the service shares: paging, `order`, instants.

Declared once so that each family of read endpoints (`read_endpoints`, and
the families beside it) states the same bounds and defaults; the simulator's
`sim/listing.py` checks queries against these very `Param`s and
`/openapi.json` publishes them.
"""

from __future__ import annotations

from .endpoint import Param

__all__ = ["CREATED_BETWEEN", "LIMIT", "PAGE", "PAGE_99", "instant_param", "order_param"]

#: A page's size and number, the service's bounds (customers and redemptions stop at page 99).
LIMIT = Param("limit", "limit", "integer", "How many objects a page holds.", minimum=1, maximum=100, default=10)
PAGE = Param("page", "page", "integer", "Which page, from 1.", minimum=1, maximum=100, default=1)
PAGE_99 = Param("page", "page", "integer", "Which page, from 1.", minimum=1, maximum=99, default=1)


def order_param(*fields: str) -> Param:
    """`order`: one of `fields`, ascending, or descending with a `-`; newest first by default."""
    return Param("order", "order", "string", "Sort by this field; a leading - sorts descending.",
                 enum=tuple(f"{sign}{name}" for name in fields for sign in ("", "-")), default="-created_at")


def instant_param(name: str, arg: str, description: str) -> Param:
    return Param(name, arg, "string", description, format="date-time")


CREATED_BETWEEN = (
    instant_param("start_date", "start_date", "Only objects created at or after this instant."),
    instant_param("end_date", "end_date", "Only objects created at or before this instant."),
)
