"""Records -> wire models.

The one place where what the simulator knows becomes what the service shows:
every response body is built here (one module per resource family), so the
shape of a resource is defined by the wire models and nowhere else.
"""

from ._time import iso
from .custom_events import render_event_result
from .customers import render_customer
from .loyalty import render_card_transaction, render_incentive, render_reward
from .publications import render_publication
from .vouchers import (
    first_category,
    render_balance,
    render_simple_campaign,
    render_simple_voucher,
    render_voucher,
    render_voucher_transaction,
)

__all__ = [
    "first_category",
    "iso",
    "render_balance",
    "render_card_transaction",
    "render_customer",
    "render_event_result",
    "render_incentive",
    "render_publication",
    "render_reward",
    "render_simple_campaign",
    "render_simple_voucher",
    "render_voucher",
    "render_voucher_transaction",
]
