"""Integer-cent arithmetic: the only place where rounding happens.

Policy (docs/pricing.md): amounts are integer cents; a fractional cent is rounded
half up (12.5 -> 13); a proportional split gives its rounding remainder to the
line with the largest amount (the first such line on ties) so the lines add up
exactly to the amount being split.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

__all__ = [
    "half_up_ratio",
    "parse_percent",
    "percent_of",
    "percent_of_each",
    "round_half_up",
    "split_proportionally",
]


def round_half_up(value: Fraction) -> int:
    """Nearest integer, halves away from zero (inputs here are never negative)."""
    if value < 0:
        return -round_half_up(-value)
    return (2 * value.numerator + value.denominator) // (2 * value.denominator)


def parse_percent(value: object) -> Fraction:
    """`percent_off` as an exact fraction; floats go through their shortest repr."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"percent must be a number, got {value!r}")  # noqa: TRY004 - reported as TierConfigError
    return Fraction(str(value)) if not isinstance(value, int) else Fraction(value)


def half_up_ratio(numerator: int, denominator: int) -> int:
    """`round_half_up(Fraction(numerator, denominator))` for `denominator > 0`,
    in plain integer arithmetic.

    Why: building Fractions (gcd, normalisation, rich comparisons) was the
    largest single cost of a validation request. `(2n + d) // (2d)` is the
    same floor whether or not n/d is reduced, so no gcd is needed.
    """
    if numerator < 0:
        return -((-2 * numerator + denominator) // (2 * denominator))
    return (2 * numerator + denominator) // (2 * denominator)


def percent_of(amount: int, percent: Fraction) -> int:
    """`percent`% of `amount` cents, rounded half up (= round_half_up(amount * percent / 100))."""
    return half_up_ratio(amount * percent.numerator, 100 * percent.denominator)


def percent_of_each(amounts: Sequence[int], percent: Fraction) -> list[int]:
    """`[percent_of(a, percent) for a in amounts]` for amounts >= 0, with the
    half-up division written out once (one call per tier, not per line)."""
    p, d = percent.numerator, 100 * percent.denominator
    if p < 0 or (amounts and min(amounts) < 0):
        return [percent_of(a, percent) for a in amounts]
    return [(2 * a * p + d) // (2 * d) for a in amounts]


def split_proportionally(total: int, weights: Sequence[int], caps: Sequence[int]) -> list[int]:
    """Split `total` cents over lines in proportion to `weights`, each share <= its cap.

    Shares are rounded half up; the rounding remainder (positive or negative)
    goes to the line with the largest cap (the line amount), first on ties,
    within that line's room. A line whose exact share exceeds its cap is held at
    the cap and the rest is re-split over the other lines (water filling), so
    the result sums to min(total, sum(caps)) whenever the weights allow it.
    """
    n = len(weights)
    shares = [0] * n
    total = min(total, sum(caps))
    if total <= 0 or n == 0:
        return shares
    open_lines = [i for i in range(n) if weights[i] > 0 and caps[i] > 0]
    remaining = total
    # Exact integer arithmetic throughout: "share_i = remaining * w_i / W" is
    # compared and rounded without building a Fraction (W > 0 on open lines).
    weight_sum = 0
    while open_lines:
        weight_sum = sum([weights[i] for i in open_lines])
        capped = [i for i in open_lines if remaining * weights[i] >= caps[i] * weight_sum]
        if not capped:
            break  # weight_sum is the open lines' total
        for i in capped:
            shares[i] = caps[i]
            remaining -= caps[i]
        open_lines = [i for i in open_lines if i not in capped]
    if not open_lines or remaining <= 0:
        return shares
    given = 0
    for i in open_lines:
        share = half_up_ratio(remaining * weights[i], weight_sum)
        shares[i] = share
        given += share
    diff = remaining - given
    if diff == 0:
        return shares
    # Give the remainder to the largest line first (first on ties); fall through
    # to the next largest only if the cap leaves no room (rare, tiny amounts).
    # (sorted() is stable and open_lines ascend: ties stay in line order)
    order = sorted(open_lines, key=lambda i: -caps[i])
    for i in order:
        if diff == 0:
            break
        if diff > 0:
            room = caps[i] - shares[i]
            step = min(room, diff)
        else:
            step = -min(shares[i], -diff)
        shares[i] += step
        diff -= step
    return shares
