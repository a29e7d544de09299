"""Integer-cent arithmetic: the only place where rounding happens.

Policy (design.md §5): amounts are integer cents; a fractional cent is rounded
half up (12.5 -> 13); a proportional split gives its rounding remainder to the
line with the largest amount (the first such line on ties) so the lines add up
exactly to the amount being split.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

__all__ = ["parse_percent", "percent_of", "round_half_up", "split_proportionally"]


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


def percent_of(amount: int, percent: Fraction) -> int:
    """`percent`% of `amount` cents, rounded half up."""
    return round_half_up(amount * percent / 100)


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
    while open_lines:
        weight_sum = sum(weights[i] for i in open_lines)
        capped = [i for i in open_lines if Fraction(remaining * weights[i], weight_sum) >= caps[i]]
        if not capped:
            break
        for i in capped:
            shares[i] = caps[i]
            remaining -= caps[i]
        open_lines = [i for i in open_lines if i not in capped]
    if not open_lines or remaining <= 0:
        return shares
    weight_sum = sum(weights[i] for i in open_lines)
    for i in open_lines:
        shares[i] = round_half_up(Fraction(remaining * weights[i], weight_sum))
    diff = remaining - sum(shares[i] for i in open_lines)
    # Give the remainder to the largest line first (first on ties); fall through
    # to the next largest only if the cap leaves no room (rare, tiny amounts).
    order = sorted(open_lines, key=lambda i: (-caps[i], i))
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
