"""The timeline: one row per replayed line, and the balances beside it.

Columns and dtypes are fixed (docs/replay.md, "Timeline"):

    line            Int64            line number in the source (1-based)
    time            datetime64[us, UTC]  simulated time after the line (clock unchanged for a malformed line)
    op              category         canonical operation (categories: every known operation); NA if unreadable
    outcome         category         "ok", or the error key (refusal or malformed line)
    status          Int64            HTTP-equivalent status: 200/202/204 on success, the
                                     refusal's status (500: internal error); NA if malformed
    result          string           short summary of what the operation returned, for people
                                     (money via promolab.display, in USD: the timeline does not
                                     know the scenario's currency; points as points); NA on failure
    tiers           Int64            validate: number of applicable tiers; NA for other operations
    best_tier       string           validate: id of the tier with the largest total discount
    best_discount   Int64            validate: that discount, in cents
    publications    Int64            counts after the line: publications,
    events          Int64              tracked custom events,
    conversions     Int64              referral conversions,
    pending_purchases Int64            reward purchases still PENDING,
    deliveries      Int64              webhook delivery attempts logged,
    pending_deliveries Int64           sendouts waiting for a retry
    message         string           why the line failed; NA on success
    note            string           the line's "note", if any

Balances are a tidy companion frame (`balances_frame`), one row per account
whose balance changed at a line, plus the opening balance of every account at
line 0; `balance_table` pivots it wide (one column per account, forward
filled). Tidy, because a scenario may hold thousands of cards: the timeline
must not grow a column per card, and a replay must not copy every balance
after every line.

The timeline is defined here (its columns, the status of a successful line,
the balance columns, `balance_table`); it is accumulated while a replay runs
by `timeline_builder.TimelineBuilder`, whose typed columns are built by
`columns`; the `result` text of each operation is `summaries`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..models.endpoints import SERVICE

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BALANCE_COLUMNS",
    "BALANCE_KINDS",
    "COUNT_COLUMNS",
    "SUCCESS_STATUS",
    "TIMELINE_COLUMNS",
    "balance_table",
]

TIMELINE_COLUMNS = [
    "line", "time", "op", "outcome", "status", "result", "tiers", "best_tier", "best_discount",
    "publications", "events", "conversions", "pending_purchases", "deliveries", "pending_deliveries",
    "message", "note",
]
COUNT_COLUMNS = ("publications", "events", "conversions", "pending_purchases", "deliveries", "pending_deliveries")
BALANCE_COLUMNS = ["line", "time", "kind", "account", "owner", "balance", "change"]
BALANCE_KINDS = ["card", "gift"]

#: Status of a successful line, as the HTTP face answers it (default 200):
#: each endpoint's own, from the catalogue.
SUCCESS_STATUS: dict[str, int] = {e.name: e.status for e in SERVICE if e.status != 200}


def balance_table(balances: pd.DataFrame, lines: Any, *, kind: str | None = None) -> pd.DataFrame:
    """Wide balances: one row per line (0 = opening, then every timeline
    line), one column per account, forward filled."""
    import pandas as pd

    frame = balances if kind is None else balances[balances["kind"] == kind]
    index = pd.Index([0, *[int(x) for x in lines]], name="line").unique()
    if frame.empty:
        return pd.DataFrame(index=index)
    last = frame.drop_duplicates(["line", "account"], keep="last")
    wide = last.pivot(index="line", columns="account", values="balance")
    accounts = list(dict.fromkeys(frame["account"].tolist()))
    wide = wide.reindex(index=index, columns=accounts).ffill().astype("Int64")
    wide.columns.name = "account"
    return wide
