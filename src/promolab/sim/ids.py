"""Seeded identifiers in the interface's formats.

An id is `prefix + hex`, derived from (seed, prefix, per-prefix counter) by a
keyed hash. The generator's whole state is the counters, so a snapshot can
restore it exactly and two simulators with the same seed hand out the same
ids in the same order, while the ids still look random to a reader (as the
real service's do) instead of `linc_1`, `linc_2`.
"""

from __future__ import annotations

import hashlib

__all__ = ["IdGenerator", "PREFIXES"]

#: What each kind of entity is called on the wire.  Loyalty v2 prefixes follow
#: the real service (semantics §5.2); v1 ones follow its long-standing formats.
PREFIXES: dict[str, str] = {
    "incentive": "linc_",
    "program": "lprg_",
    "card_definition": "lcdef_",
    "member": "lmbr_",
    "card": "lcrd_",
    "earning_rule": "lern_",
    "reward": "lrew_",
    "reward_assignment": "lrewa_",
    "card_transaction": "lctx_",
    "product": "prod_",
    "sku": "sku_",
    "collection": "pc_",
    "customer": "cust_",
    "segment": "seg_",
    "campaign": "camp_",
    "promotion_tier": "promo_",
    "voucher": "v_",
    "publication": "pub_",
    "voucher_transaction": "vtx_",
    "webhook": "wh_",
    "webhook_sendout": "whs_",
    "event": "evcus_",
    "request": "v-",
    "project": "proj_",
    "asset": "U2FsdGVk",
    "conversion": "rcnv_",
    "granted_item": "lgrt_",
}


class IdGenerator:
    __slots__ = ("seed", "_counters")

    def __init__(self, seed: int = 0, counters: dict[str, int] | None = None) -> None:
        self.seed = seed
        self._counters: dict[str, int] = dict(counters or {})

    def next(self, kind: str, *, length: int = 24) -> str:
        prefix = PREFIXES[kind]
        n = self._counters.get(kind, 0) + 1
        self._counters[kind] = n
        digest = hashlib.blake2b(f"{self.seed}:{kind}:{n}".encode(), digest_size=16).hexdigest()
        return prefix + digest[:length]

    def state(self) -> dict[str, int]:
        return dict(sorted(self._counters.items()))
