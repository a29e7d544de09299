"""The codes a fixed set's campaigns publish to each order's customer.

A campaign named in a fixed policy (`fixed_set`) stands for "the code this
order's customer is handed": before the order is redeemed, the customer is
published a code of the campaign. Which code is the publication operation's
decision (`sim.publishing`): the first free code of the pool, or with the
campaign's `join_once` the code the customer already holds; none left is
`no_voucher_suitable_for_publication`. A customer named by a source_id the
simulator does not store is created, as the service creates one.

What a publication decides never depends on what was redeemed (only on
earlier publications), so every order's code is known before the walk: the
orders are published to in time order, through the simulator's own
operation (`Simulator.apply`), on a private copy of the simulator (its
snapshot restored without webhook configurations: a forecast sends
nothing). The forecast then runs on that copy, whose customers and holders
are what the service would have by then. An order without a customer gets
no code and redeems nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...sim import NO_CODE_LEFT, PUBLISH, SimError, free_codes
from ..orders import LineColumns
from .fixed_set import FixedCampaign

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["Publications", "publish_codes"]


@dataclass(frozen=True)
class Publications:
    """What the set's campaigns handed out, order by order, and the simulator
    that holds it (the forecast runs on it: its customers are created)."""

    #: the simulator the forecast runs on: a copy holding the publications
    sim: Simulator
    #: per campaign of the set: each order's code (None: none published)
    codes: tuple[list[str | None], ...]
    #: per campaign: the orders its pool had no code left for
    pool_empty: tuple[np.ndarray, ...]
    #: per campaign: codes still free to publish at the end
    free_left: tuple[int, ...]


def publish_codes(sim: Simulator, cols: LineColumns, order: np.ndarray,
                  campaigns: tuple[FixedCampaign, ...]) -> Publications:
    """Publish a code of each campaign to each order's customer, in time order
    (`order`: positions), on a copy of `sim`."""
    snapshot: dict[str, Any] = sim.snapshot()
    snapshot["state"] = {**snapshot["state"], "webhooks": {}}
    work = type(sim).restore(snapshot)
    n = cols.n_orders
    codes: list[list[str | None]] = [[None] * n for _ in campaigns]
    empty = [np.zeros(n, dtype=bool) for _ in campaigns]
    for i in order.tolist():
        customer = cols.customer_of(i)
        if customer is None:
            continue
        for k, campaign in enumerate(campaigns):
            try:
                done = work.apply(PUBLISH, request={"customer": {"source_id": customer},
                                                    "campaign": {"id": campaign.campaign_id}})
            except SimError as exc:
                if exc.key == NO_CODE_LEFT:
                    empty[k][i] = True
                continue
            codes[k][i] = done.voucher.code
    return Publications(work, tuple(codes), tuple(empty), tuple(free_codes(work, c.campaign_id) for c in campaigns))
