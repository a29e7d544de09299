"""A fixed policy: the same redeemables sent with every order, tiers and codes.

`forecast(sim, orders, policy=["promo_x", "SPRING-10", "camp_newsletter"])`
sends that set, in that order, with each order, as a checkout that always
applies a given promotion and a given code would. Each name is one of:

- a candidate tier id;
- the code of a voucher the simulator holds (a discount code or a gift
  card), resolved afresh at each order's instant by the simulator's own
  rules (`stack_redeemables`): its dates, its uses left (code stock: the
  voucher's `redemption_quantity` against its redemptions, the ones made
  earlier in the forecast included), a gift card's balance;
- the id of a campaign of codes (DISCOUNT_COUPONS or GIFT_VOUCHERS): the
  order's customer is published a code of it first, by the simulator's
  publication operation (`publications`): a campaign with `join_once` gives
  a customer the same code every time, otherwise each order takes a fresh
  code from the pool until none is left. That code is sent in its place.

Positions: a tier keeps its candidate position; the k-th code or campaign of
the set is position `len(candidates) + k`, so the result names all alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...engine import CompiledTier
from ...models import RedeemableInput
from ...sim import NotFound, free_codes, stacking_rules_in_force, voucher_by_code

if TYPE_CHECKING:
    from ...sim import Simulator, VoucherRecord

__all__ = ["HELD_POOL", "HELD_STOCK", "FixedCampaign", "FixedCode", "FixedSet", "fixed_set"]

#: Why a code or campaign of the set held an order back (`Spending.held_leaf`):
#: the code's uses ran out; the campaign's pool had no code left to publish.
HELD_STOCK = -1
HELD_POOL = 1

#: Campaigns whose codes a fixed set can publish and redeem.
_CODE_CAMPAIGNS = ("DISCOUNT_COUPONS", "GIFT_VOUCHERS")


@dataclass(frozen=True)
class FixedCode:
    """A code of a fixed set, as it stood when the forecast started."""

    code: str
    voucher_id: str
    #: its campaign's id; a code outside any campaign is its own campaign
    campaign_id: str
    position: int
    #: the voucher's `redemption_quantity` (None: unlimited) and its uses so far
    quantity: int | None
    redeemed: int

    @property
    def label(self) -> str:
        """How the result names it: by its code."""
        return self.code


@dataclass(frozen=True)
class FixedCampaign:
    """A campaign of a fixed set: each order's customer is published one of its codes."""

    campaign_id: str
    position: int
    #: where it stands in the request (its code replaces the placeholder there)
    slot: int
    join_once: bool
    #: codes that could still be published when the forecast started
    free: int

    @property
    def label(self) -> str:
        """How the result names it (and the codes it published): by the campaign's id."""
        return self.campaign_id


@dataclass(frozen=True)
class FixedSet:
    """The redeemables sent with every order: positions in request order."""

    positions: tuple[int, ...]
    codes: tuple[FixedCode, ...]
    campaigns: tuple[FixedCampaign, ...]
    #: what is sent, a campaign's slot holding a placeholder until its code is known
    redeemables: tuple[RedeemableInput, ...]

    @property
    def extras(self) -> list[FixedCode | FixedCampaign]:
        """The codes and campaigns, by position (after the candidate tiers)."""
        return sorted([*self.codes, *self.campaigns], key=lambda e: e.position)

    def with_codes(self, published: list[str]) -> list[RedeemableInput]:
        """The request of one order: each campaign's slot holds the code
        published to its customer (`published`, in `campaigns` order)."""
        sent = list(self.redeemables)
        for campaign, code in zip(self.campaigns, published, strict=True):
            sent[campaign.slot] = RedeemableInput(object="voucher", id=code)
        return sent


def fixed_set(sim: Simulator, chosen: list[CompiledTier], excluded: dict[str, str], names: list[str],
              offered: Sequence[str] = ()) -> FixedSet:
    """Resolve a fixed policy's names; refuses an empty set, a name given
    twice, more names than the project's `redeemables_limit`, a tier left
    out or not a candidate, a name that is none of a tier, a code or a
    campaign of codes, a name that is more than one, a campaign that is not
    active. (A
    code the stack refuses, e.g. one without a discount, is sent and
    refused, as the service would.)"""
    if not names or not all(isinstance(n, str) for n in names):
        raise ValueError("a fixed policy is a non-empty list of promotion tier ids, codes and campaign ids")
    repeated = sorted(n for n, count in Counter(names).items() if count > 1)
    if repeated:
        shown = ", ".join(repr(n) for n in repeated[:5]) + (f" and {len(repeated) - 5} more" if len(repeated) > 5 else "")
        raise ValueError(f"a fixed policy names a tier, code or campaign twice: {shown}")
    limit = stacking_rules_in_force(sim).redeemables_limit
    if len(names) > limit:
        raise ValueError(f"a fixed policy of {len(names)} names is more than the project's redeemables_limit "
                         f"({limit}): the service would refuse every order")
    position = {t.id: p for p, t in enumerate(chosen)}
    positions: list[int] = []
    codes: list[FixedCode] = []
    campaigns: list[FixedCampaign] = []
    redeemables: list[RedeemableInput] = []
    for slot, name in enumerate(names):
        if name in excluded:
            raise ValueError(f"tier {name} cannot be in a fixed policy: {excluded[name]}")
        voucher = _voucher(sim, name)
        campaign = sim.state.campaigns.get(name)
        kinds = [k for k, found in (("a candidate tier", name in position), ("a code", voucher is not None),
                                    ("a campaign", campaign is not None)) if found]
        if len(kinds) > 1:
            raise ValueError(f"{name!r} is both {' and '.join(kinds)}; a fixed policy cannot tell which")
        if name in position:
            positions.append(position[name])
            redeemables.append(RedeemableInput(object="promotion_tier", id=name))
            continue
        p = len(chosen) + len(codes) + len(campaigns)
        positions.append(p)
        if voucher is not None:
            codes.append(FixedCode(voucher.code, voucher.id, voucher.campaign_id or voucher.code, p,
                                   voucher.redemption_quantity, voucher.redeemed_quantity))
            redeemables.append(RedeemableInput(object="voucher", id=voucher.code))
        elif campaign is not None and campaign.type in _CODE_CAMPAIGNS:
            if not campaign.active:
                raise ValueError(f"campaign {name} is not active: it publishes no code (the service would refuse "
                                 "every publication)")
            campaigns.append(FixedCampaign(campaign.id, p, slot, campaign.join_once, free_codes(sim, campaign.id)))
            redeemables.append(RedeemableInput(object="voucher", id=campaign.id))  # a placeholder
        elif campaign is not None:
            raise ValueError(f"campaign {name} is a {campaign.type} campaign: a fixed policy publishes codes of "
                             f"{' or '.join(_CODE_CAMPAIGNS)} campaigns (name its tiers instead)")
        else:
            raise ValueError(f"{name!r} is neither a candidate tier, a code nor a campaign of codes; "
                             f"candidate tiers: {', '.join(offered) or 'none'}")
    return FixedSet(tuple(positions), tuple(codes), tuple(campaigns), tuple(redeemables))


def _voucher(sim: Simulator, code: str) -> VoucherRecord | None:
    """The voucher of a code (as a request names it), None if there is none."""
    try:
        return voucher_by_code(sim, code)
    except NotFound:
        return None
