"""Records -> wire models.

The one place where what the simulator knows becomes what the service shows:
every response body is built here (one module per resource family), so the
shape of a resource is defined by the wire models and nowhere else.
"""

from ._time import iso
from .customers import render_customer
from .loyalty import render_card_transaction, render_incentive, render_reward

__all__ = ["iso", "render_customer", "render_card_transaction", "render_incentive", "render_reward"]
