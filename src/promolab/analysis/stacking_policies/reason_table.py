"""The reasons a redeemable was not applied, numbered: one small code per output row.

Millions of (order, policy, redeemable) rows share a handful of reasons, so
each row keeps a code into this table and the frame turns codes into
categories once. A reason is the engine's key and message, the `why` a
person reads and, for a rule failure, how many redeemables were tried before
it: with the running amount the rules saw (kept per row, `seen`), that
rebuilds the engine's `why` through `why_rules_failed` itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...engine import FIXED_REASONS, RuleFailure, why_rules_failed

__all__ = ["Reason", "ReasonTable"]


@dataclass(frozen=True)
class Reason:
    key: str
    message: str
    why: str
    #: Redeemables tried before it, for a rule failure whose `why` names the
    #: running amount (None: `why` is complete).
    before: int | None = None


@dataclass
class ReasonTable:
    """Reasons by code; code 0 is "applied" (no reason)."""

    reasons: list[Reason | None] = field(default_factory=lambda: [None])
    _codes: dict[Reason, int] = field(default_factory=dict)

    def code(self, reason: Reason) -> int:
        found = self._codes.get(reason)
        if found is None:
            found = self._codes[reason] = len(self.reasons)
            self.reasons.append(reason)
        return found

    def fixed(self, key: str) -> int:
        """A reason that does not depend on the order (`engine.FIXED_REASONS`)."""
        message, why = FIXED_REASONS[key]
        return self.code(Reason(key, message, why))

    def failure(self, failure: RuleFailure, before: int) -> int:
        """An INAPPLICABLE redeemable's failure; its `why` may name the running amount."""
        return self.code(Reason(failure.key, failure.message, failure.message, before))

    def columns(
        self, codes: np.ndarray, seen: np.ndarray, amounts: np.ndarray
    ) -> tuple[list[str | None], list[str | None], list[str | None], np.ndarray]:
        """(keys, messages, whys) by code, and per row its `why` code.

        A row's `why` is its reason's, except for a rule failure seen on a
        running amount (`seen` >= 0, `amounts` as sent): the engine's text
        with that amount, built once per distinct (reason, amount seen,
        amount).
        """
        keys = [r.key if r else None for r in self.reasons]
        messages = [r.message if r else None for r in self.reasons]
        whys: list[str | None] = [r.why if r else None for r in self.reasons]
        why_code = codes.astype(np.int64)
        special = np.flatnonzero(seen >= 0)
        if special.size:
            triples = np.stack([codes[special].astype(np.int64), seen[special], amounts[special]])
            uniq, inverse = np.unique(triples, axis=1, return_inverse=True)
            extra = []
            for code, total, amount in uniq.T.tolist():
                reason = self.reasons[code]
                assert reason is not None and reason.before is not None
                extra.append(why_rules_failed(RuleFailure(reason.key, reason.message), total, amount, reason.before))
            why_code[special] = len(whys) + inverse.reshape(-1)
            whys.extend(extra)
        return keys, messages, whys, why_code
