"""Loyalty v2 behaviour behind the reward purchase endpoint.

- `purchases`: the checks a purchase must pass, shared by the request (which
  answers 400/404/423) and the asynchronous processing (which rejects).
- `reservations`: points and stock held by PENDING purchases.
- `granting`: handing the member what they bought (material item, discount
  coupon, gift voucher).
- `processing`: the processor that settles PENDING purchases on the
  simulated clock.
"""

from __future__ import annotations

__all__: list[str] = []
