"""The comparison's output arrays: per (order, policy) and per (order, policy, redeemable).

Order-major, like the sweep's: a chunk of orders owns one contiguous block,
written in place by whichever path priced it (numpy or the engine), so the
frames are built once over whole arrays at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["STATUSES", "StackOutputs"]

#: Status codes, as the engine spells them.
STATUSES = ("APPLICABLE", "INAPPLICABLE", "SKIPPED")
APPLICABLE, INAPPLICABLE, SKIPPED = 0, 1, 2


@dataclass
class StackOutputs:
    amount: np.ndarray  # (orders,) the order amount as sent
    valid: np.ndarray  # (orders, policies) bool
    applicable: np.ndarray  # (orders, policies) redeemables with status APPLICABLE
    discount: np.ndarray  # (orders, policies) cents off, 0 when not valid
    total: np.ndarray  # (orders, policies) final total, the amount when not valid
    status: np.ndarray  # (orders, policies, redeemables) int8 code into STATUSES
    reason: np.ndarray  # (orders, policies, redeemables) code into a ReasonTable, 0 when applied
    applied: np.ndarray  # (orders, policies, redeemables) cents it took off (0 unless APPLICABLE)
    #: The running amount a rule failure's rules saw, -1 unless its `why` names it.
    seen: np.ndarray

    @classmethod
    def allocate(cls, n_orders: int, n_policies: int, n_redeemables: int) -> StackOutputs:
        shape, deep = (n_orders, n_policies), (n_orders, n_policies, n_redeemables)
        return cls(
            amount=np.zeros(n_orders, dtype=np.int64),
            valid=np.zeros(shape, dtype=bool),
            applicable=np.zeros(shape, dtype=np.int16),
            discount=np.zeros(shape, dtype=np.int64),
            total=np.zeros(shape, dtype=np.int64),
            status=np.zeros(deep, dtype=np.int8),
            reason=np.zeros(deep, dtype=np.int32),
            applied=np.zeros(deep, dtype=np.int64),
            seen=np.full(deep, -1, dtype=np.int64),
        )

    def block(self, a: int, b: int) -> StackOutputs:
        """Orders a..b-1 (views)."""
        return StackOutputs(*(getattr(self, name)[a:b] for name in _FIELDS))


_FIELDS = ("amount", "valid", "applicable", "discount", "total", "status", "reason", "applied", "seen")
