"""The forecast's reference: the same dated orders sent one by one to a service.

For each order in time order the simulator's clock is moved to its
`placed_at`, the promotion validation says what each candidate tier gives,
and the best one (the forecast's policy) is redeemed through the redemption
operation, which spends the budgets. Two requests per order, and exactly
what the service does: the forecast must agree with it order for order
(tests/analysis/test_forecast_differential.py); the benchmark measures how
much faster the forecast is. Any client works; only a simulator's clock can
be moved (`clock`), so against a real deployment the orders are priced now.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...client import ApiError
from ..orders import line_columns, utc_datetime
from .costs import CostModel
from .facts import order_columns

if TYPE_CHECKING:
    from ...client import Client
    from ...sim import Simulator

__all__ = ["ONE_BY_ONE_COLUMNS", "send_one_by_one"]

ONE_BY_ONE_COLUMNS = ("order_id", "qualified_tier_id", "redeemed", "tier_id", "redeemables", "discount", "redemption_id")


def send_one_by_one(client: Client, orders: pd.DataFrame, tiers: Sequence[str], *,
                    policy: str | Sequence[str] = "best",
                    costs: CostModel | None = None, clock: Simulator | None = None,
                    campaigns: Mapping[str, str] | None = None, publish: Collection[str] = ()) -> pd.DataFrame:
    """Send each order (time order) through `client`, redeeming what `policy`
    says of `tiers` (ids, in the forecast's candidate order:
    `ForecastResult.tier_ids`): "best", the one giving most; "stack", every
    one valid, stacked; a list of tier ids and codes, that set with every
    order (a name not in `tiers` is a code; a refused stack redeems nothing).
    `clock`: the simulator behind the client, whose clock is moved to each
    order's instant. `campaigns`: each code's campaign id, for a cost model
    with rates per campaign (`ForecastResult.tier_campaigns`; default: a code
    is its own campaign). `publish`: the names of a fixed set that are
    campaigns of codes: before each order is validated, its customer is
    published a code of each (none: the order redeems nothing), and that code
    is sent in the campaign's place. Returns one row per order, in the order
    sent; a code is named by its code, a published one by its campaign, as in
    the forecast."""
    costs = costs or CostModel()
    position = {t: p for p, t in enumerate(tiers)}
    codes = [] if isinstance(policy, str) else [name for name in policy if name not in position]
    position.update({code: len(tiers) + k for k, code in enumerate(codes)})
    code_campaign = {code: (campaigns or {}).get(code, code) for code in codes}
    code_campaign.update({name: name for name in publish})
    sent_as = {name: {"object": "voucher" if name in code_campaign else "promotion_tier", "id": name} for name in position}
    cols = line_columns(orders)
    if cols.placed_at is None:
        raise ValueError("the orders need a 'placed_at' column")
    draws = costs.draws(cols.order_ids)
    factors = costs.order_factors(order_columns(orders)) if costs.cohort_rates else np.ones(cols.n_orders)
    rows: list[dict[str, Any]] = []
    for i in np.argsort(cols.placed_at, kind="stable").tolist():
        if clock is not None:
            at = utc_datetime(int(cols.placed_at[i]))
            if at < clock.now:
                raise ValueError(f"order {cols.order_ids[i]!r} was placed at {at.isoformat()}, "
                                 f"before the simulator's clock ({clock.now.isoformat()})")
            clock.advance(at - clock.now)
        customer = cols.customer_of(i)
        who = {"source_id": customer} if customer is not None else None
        order = {"items": cols.items(i)}
        metadata = cols.metadata_of(i) or None
        handed = _handed(client, who, publish)
        answer = client.validate_promotions(order=order, customer=who, metadata=metadata)
        offers = [(t.discount_amount or 0, position[t.id], t) for t in answer.promotions if t.id in position and t.valid]
        offers = sorted((o for o in offers if o[0] > 0), key=lambda o: (-o[0], o[1]) if policy == "best" else o[1])
        campaign_of = {t.id: t.campaign.id for t in answer.promotions}
        if isinstance(policy, str):
            sent = [o[2].id for o in offers[:1]] if policy == "best" else [o[2].id for o in offers]
        else:
            sent = list(policy)  # a fixed set: sent with every order, whatever the validation says
        row: dict[str, Any] = {"order_id": str(cols.order_ids[i]), "qualified_tier_id": sent[0] if sent else None,
                               "redeemed": False, "tier_id": None, "redeemables": None, "discount": 0,
                               "redemption_id": None}
        campaign_of.update(code_campaign)
        rate = max((costs.tier_rate(t, campaign_of.get(t, "")) for t in sent), default=0.0)
        if sent and draws[i] < rate * factors[i] and len(handed) == len(publish):
            try:
                done = client.redeem_stacked(redeemables=[{**sent_as[t], "id": handed.get(t, t)} for t in sent],
                                             order=order, customer=who, metadata=metadata)
            except ApiError as exc:
                if policy == "best" or exc.status != 400:
                    raise
            else:
                # children, in application order; a code by its code
                label = {code: name for name, code in handed.items()}
                applied = [label.get(r.voucher["code"], r.voucher["code"]) if r.voucher else r.related_object_id
                           for r in done.redemptions]
                parent = done.parent_redemption
                row.update(redeemed=True, tier_id=applied[0], redeemables=",".join(sorted(applied, key=position.__getitem__)),
                           discount=done.order.total_applied_discount_amount or 0,
                           redemption_id=(parent or done.redemptions[0]).id)
        rows.append(row)
    return pd.DataFrame(rows, columns=list(ONE_BY_ONE_COLUMNS))


def _handed(client: Client, who: dict[str, str] | None, campaigns: Collection[str]) -> dict[str, str]:
    """The code each campaign publishes to the order's customer (a refused
    publication, or no customer: none)."""
    handed: dict[str, str] = {}
    if who is None:
        return handed
    for campaign in campaigns:
        try:
            handed[campaign] = client.publish(customer=who, campaign={"id": campaign}).voucher.code
        except ApiError as exc:
            if exc.status != 400:
                raise
    return handed
