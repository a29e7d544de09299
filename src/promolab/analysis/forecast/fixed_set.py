"""A fixed policy: the same redeemables sent with every order, tiers and codes.

`forecast(sim, orders, policy=["promo_x", "SPRING-10"])` sends that set, in
that order, with each order, as a checkout that always applies a given
promotion and a given code would. Each name is a candidate tier id or the
code of a voucher the simulator holds (a discount code or a gift card). Codes are
resolved afresh at each order's instant by the simulator's own rules
(`stack_redeemables`): their dates, their uses left (code stock: the
voucher's `redemption_quantity` against its redemptions, the ones made
earlier in the forecast included), a gift card's balance.

Positions: a tier keeps its candidate position; the k-th code of the set is
position `len(candidates) + k`, so the result names both alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...engine import CompiledTier
from ...models import RedeemableInput

if TYPE_CHECKING:
    from ...sim.records import Voucher
    from ...sim.simulator import Simulator

__all__ = ["FixedCode", "FixedSet", "fixed_set"]

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
    #: a gift card's balance (None: a discount code)
    balance: int | None


@dataclass(frozen=True)
class FixedSet:
    """The redeemables sent with every order: positions in request order."""

    positions: tuple[int, ...]
    codes: tuple[FixedCode, ...]
    redeemables: tuple[RedeemableInput, ...]


def fixed_set(sim: Simulator, chosen: list[CompiledTier], excluded: dict[str, str], names: list[str]) -> FixedSet:
    """Resolve a fixed policy's names; refuses an empty set, a name given
    twice, a tier left out or not a candidate, an unknown code, a name that
    is both. (A code the stack refuses, e.g. one without a discount, is sent
    and refused, as the service would.)"""
    if not names or not all(isinstance(n, str) for n in names):
        raise ValueError("a fixed policy is a non-empty list of promotion tier ids and codes")
    if len(set(names)) != len(names):
        raise ValueError(f"a fixed policy names a tier or code twice: {names}")
    position = {t.id: p for p, t in enumerate(chosen)}
    positions: list[int] = []
    codes: list[FixedCode] = []
    redeemables: list[RedeemableInput] = []
    for name in names:
        voucher = _voucher(sim, name)
        if name in excluded:
            raise ValueError(f"tier {name} cannot be in a fixed policy: {excluded[name]}")
        if name in position:
            if voucher is not None:
                raise ValueError(f"{name!r} is both a candidate tier and a code; a fixed policy cannot tell which")
            positions.append(position[name])
            redeemables.append(RedeemableInput(object="promotion_tier", id=name))
            continue
        if voucher is None:
            raise ValueError(f"{name!r} is neither a candidate tier nor a code; candidates: {', '.join(position)}")
        p = len(chosen) + len(codes)
        codes.append(FixedCode(voucher.code, voucher.id, voucher.campaign_id or voucher.code, p,
                               voucher.redemption_quantity, voucher.redeemed_quantity,
                               voucher.gift.balance if voucher.gift is not None else None))
        positions.append(p)
        redeemables.append(RedeemableInput(object="voucher", id=voucher.code))
    return FixedSet(tuple(positions), tuple(codes), tuple(redeemables))


def _voucher(sim: Simulator, code: str) -> Voucher | None:
    found = sim.indexes.voucher_by_code.get(code)
    return sim.state.vouchers.get(found) if found is not None else None
