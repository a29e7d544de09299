"""The redemptions of a pulled history that count: succeeded, and not rolled back.

One rule read by the retro-replay (its `actual` columns) and the response
fit from a history (`history_offers`, what each order redeemed), so the two
never disagree on what a history says was given.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["STANDING_COLUMNS", "standing_redemptions"]

#: The columns of a pulled history's redemptions frame (docs/pull.md) the rule reads.
STANDING_COLUMNS = ("redemption_id", "object", "parent_id", "rolls_back", "result", "order_id", "redeemable_type",
                    "redeemable_id", "discount_amount")


def standing_redemptions(redemptions: pd.DataFrame) -> pd.DataFrame:
    """The redemptions that succeeded and were not undone by a rollback that
    succeeded (itself, or its parent), `discount_amount` as `Int64`.

    Raises TypeError for what is not a DataFrame, ValueError when the frame is not a pulled history's redemptions."""
    if not isinstance(redemptions, pd.DataFrame):
        raise TypeError(f"redemptions: a pulled history's redemptions frame is a DataFrame, "
                         f"got {type(redemptions).__name__}")
    missing = set(STANDING_COLUMNS) - set(redemptions.columns)
    if missing:
        raise ValueError(f"redemptions: not a pulled history's redemptions frame (no {', '.join(sorted(missing))})")
    try:
        redemptions = redemptions.astype({"discount_amount": "Int64"})
    except (TypeError, ValueError):
        raise ValueError("redemptions: discount_amount must be whole minor units") from None
    made = redemptions[(redemptions["object"] == "redemption") & (redemptions["result"] == "SUCCESS")]
    undone = set(redemptions.loc[(redemptions["object"] == "redemption_rollback")
                                 & (redemptions["result"] == "SUCCESS"), "rolls_back"].dropna())
    # a redemption undone itself, or a child of a parent undone
    return made[~made["redemption_id"].isin(undone) & ~made["parent_id"].isin(undone)]
