"""A UNIT (free item) discount on a stack's running order.

The single-tier engine's `apply_units` does the work, on the order as the
redeemables before left it: the lines carry the units earlier UNIT discounts
added (a line one of them created is a line like the others, so a second
UNIT discount of the same product tops it up rather than adding another).
What a stack adds to it (decisions: docs/decisions.md § Stacked validations
and redemptions):

- the added units raise the line's amount and the order's amount (before
  discounts), and the UNIT discount takes the free units off, as the
  single-tier engine shows it: free units leave the running total where it
  was, so a later percentage sees the same total, now over more lines;
- a line's discount stops at its running subtotal (its amount, units
  included, less what earlier redeemables took), so a unit already free is
  not discounted twice;
- under the products mode ONCE, a line an earlier redeemable discounted is
  out of reach: the unit effect aimed at it is dropped (it neither adds nor
  discounts units: adding units that cannot be discounted would raise the
  total), and a line a UNIT discount touched counts as discounted;
- each line a UNIT discount touched keeps the service's unit fields, summed
  over the stack: `initial_quantity` and `initial_amount` as sent (0 for a
  line a UNIT discount created), `discount_quantity` of all the UNIT
  discounts so far (at most the line's quantity).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..catalogue import Catalogue
from ..compiled_tier import CompiledTier
from ..item_resolution import resolve_item
from ..lines import Line, NormalizedOrder
from ..unit_discounts import UnitLine, apply_units

__all__ = ["UnitStep", "unit_step"]


@dataclass(frozen=True, slots=True)
class UnitStep:
    """What one UNIT discount did to the lines of a stack's running order."""

    #: The order with the units in: lines raised or added, amount (before
    #: discounts) raised by the priced units added; initial_amount as sent.
    order: NormalizedOrder
    #: Every line a UNIT discount of the stack touched so far, by line index
    #: (its unit fields summed over the stack; never mutated once built).
    lines: Mapping[int, UnitLine]
    #: The indices of the lines this discount touched.
    touched: frozenset[int]
    #: Cents and units this discount added.
    added_amount: int
    added_units: int
    #: Whether any UNIT discount of the stack so far added priced units (the
    #: order then shows the amount as sent as its `initial_amount`).
    priced: bool


def unit_step(
    tier: CompiledTier,
    catalogue: Catalogue,
    current: NormalizedOrder,
    so_far: Mapping[int, UnitLine],
    done: Sequence[int],
    once: bool,
    priced: bool,
) -> tuple[UnitStep, tuple[int, ...]] | None:
    """`tier`'s units on `current` (the order as the redeemables before left
    it; `done`: each line's item discount so far), with the cents off each
    line of the new order (the caller trims them to the running total);
    None when nothing is left to do (ONCE)."""
    result = apply_units(current, catalogue, tier.units)
    changed = [(k, s) for k, s in result.changed.items() if not (once and done[k])]
    if not changed and not result.appended:
        return None
    lines = list(current.lines)
    merged = dict(so_far)
    discounts = [0] * (len(lines) + len(result.appended))
    added = added_units = 0
    touched = []
    for k, state in changed:
        line = lines[k]
        merged[k] = _merged(state, so_far.get(k))
        lines[k] = line.with_units(state.quantity, state.amount)
        grown = (state.amount or 0) - (line.amount or 0)
        added += grown
        added_units += state.quantity - line.quantity
        priced = priced or (state.price is not None and state.quantity > line.quantity)
        discounts[k] = min(state.discount_amount or 0, (state.amount or 0) - done[k])
        touched.append(k)
    for state in result.appended:
        k = len(lines)
        state.index = k
        lines.append(_new_line(catalogue, k, state))
        merged[k] = state
        added += state.amount or 0
        added_units += state.quantity
        priced = priced or (state.price is not None and state.quantity > 0)
        discounts[k] = state.discount_amount or 0
        touched.append(k)
    order = NormalizedOrder(
        tuple(lines), current.amount + added, current.initial_amount, current.items_amount + added,
        current.total_quantity + added_units, current.metadata, current.customer_id, current.referrer_id,
    )  # fmt: skip
    return UnitStep(order, merged, frozenset(touched), added, added_units, priced), tuple(discounts)


def _merged(state: UnitLine, before: UnitLine | None) -> UnitLine:
    """`state` (this discount's work on a line) on top of what earlier UNIT
    discounts did to it (`before`): the line as sent stays its initial."""
    if before is None:
        return state
    out = UnitLine(
        state.index, state.product_id, state.sku_id, state.wire_product, state.wire_sku,
        state.price, state.quantity, state.amount,
    )  # fmt: skip
    out.initial_quantity = before.initial_quantity
    out.initial_amount = before.initial_amount
    out.discount_quantity = min(before.discount_quantity + state.discount_quantity, state.quantity)
    return out


def _new_line(catalogue: Catalogue, index: int, state: UnitLine) -> Line:
    """The line a UNIT discount created, as later discounts and rules read
    it: the catalogue's product/SKU (its collections and metadata), the
    units' price, quantity and amount."""
    found = resolve_item(catalogue, state.product_id, state.sku_id, None, None)
    return Line(
        index, state.product_id, state.sku_id, None, found.product, found.sku, state.quantity,
        state.price, state.amount, found.collection_ids, dict(found.metadata), state.wire_product,
        state.wire_sku, found.match_key,
    )  # fmt: skip
