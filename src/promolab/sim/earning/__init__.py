"""Earning rules: points credited to loyalty cards when a custom event arrives.

For an event named E, every earning rule bound to E is considered, in
creation order. A rule credits when:

- the rule is active, its incentive is ACTIVE with stock left (each credit
  uses one unit of stock), and its program is ACTIVE and within its validity
  window;
- its `validation_rules` pass (`validation`);
- there is a card to credit: the card of the incentive's card definition held
  by the event customer's membership in the rule's program (an ACTIVE member).
  With `loyalty: {code}` the event names the card (by card id): only rules of
  that card's program whose incentive credits that card's definition apply,
  and they credit that card;
- the points are > 0 (`points`).

Everything is planned first (`credits.plan_credits`, no change) and applied
after (`credits.apply_credits`, through `ledger.post` as POINTS_EARNED
transactions).

The modules, one concept each:

- `points`: how many points one credit gives (POINTS, POINTS_PROPORTIONAL
  and its calculation types), exactly, at any size;
- `validation`: an earning rule's validation rules evaluated for an event,
  through the pricing engine's rule compiler, with the inputs they read;
- `caches`: what earning keeps per state object (compiled rules, customer
  contexts, programs' windows), so that an event costs no recompilation;
- `credits`: planning an event's credits (which rule credits which card, the
  card's bound) and applying them.
"""

from __future__ import annotations

__all__: list[str] = []
