"""Loyalty v2 behaviour behind the reward purchase endpoint.

- `purchases`: the checks a purchase must pass, shared by the request (which
  answers 400/404/423) and the asynchronous processing (which rejects).
- `reservations`: points and stock held by PENDING purchases (followed by
  a derived index, not found by scanning every card transaction).
- `lookups`: a member's card per card definition, a customer's memberships,
  a program's assignment of a reward (derived dicts instead of scans).
- `granting`: handing the member what they bought (material item, discount
  coupon, gift voucher).
- `processing`: the processor that settles PENDING purchases on the
  simulated clock.
"""

from __future__ import annotations

__all__: list[str] = []
