"""Seeded identifiers in the interface's formats.

An id is `prefix + hex`, derived from (seed, prefix, per-prefix counter) by a
keyed hash. The generator's whole state is the counters, so a snapshot can
restore it exactly and two simulators with the same seed hand out the same
ids in the same order, while the ids still look random to a reader (as the
real service's do) instead of `linc_1`, `linc_2`.
"""

from __future__ import annotations

import hashlib

__all__ = ["PREFIXES", "IdGenerator"]

#: What each kind of entity is called on the wire.  Loyalty v2 prefixes follow
#: the real service (docs/interface.md); v1 ones follow its long-standing formats.
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
    "stacking_rules": "stk_",
    "validation": "valid_",
    "redemption": "r_",
    "rollback": "rr_",
    "order": "ord_",
    "session": "ssn_",
    "promotion_stack": "stack_",
    "export": "exp_",
}


class IdGenerator:
    __slots__ = ("_counters", "_hashers", "_hashers_seed", "seed")

    def __init__(self, seed: int = 0, counters: dict[str, int] | None = None) -> None:
        self.seed = seed
        self._counters: dict[str, int] = dict(counters or {})
        #: kind -> a blake2b that has already hashed `"{seed}:{kind}:"`: hashing
        #: is streaming, so a copy of it fed the counter gives the digest of the
        #: whole text, at about half the cost of a new hasher per id. Built for
        #: `_hashers_seed`; a different `seed` (the attribute is public) starts over.
        self._hashers: dict[str, hashlib.blake2b] = {}
        self._hashers_seed = seed

    def next(self, kind: str, *, length: int = 24) -> str:
        prefix = PREFIXES[kind]
        counters = self._counters
        n = counters.get(kind, 0) + 1
        counters[kind] = n
        hasher = self._hashers.get(kind) if self._hashers_seed == self.seed else None
        if hasher is None:
            hasher = self._hasher(kind)
        digest = hasher.copy()
        digest.update(b"%d" % n)
        return prefix + digest.hexdigest()[:length]

    def _hasher(self, kind: str) -> hashlib.blake2b:
        """The prebuilt hasher of `kind` for the current seed (built on first use)."""
        if self._hashers_seed != self.seed:
            self._hashers = {}
            self._hashers_seed = self.seed
        hasher = self._hashers[kind] = hashlib.blake2b(f"{self.seed}:{kind}:".encode(), digest_size=16)
        return hasher

    def state(self) -> dict[str, int]:
        return dict(sorted(self._counters.items()))

    def mark(self) -> dict[str, int]:
        """The counters as they are (a copy): what `rewind` goes back to.
        A write takes one before it runs, so that a write that fails hands
        out no id: the next write draws the ids a replay of the journal,
        which never saw the failed one, draws too."""
        return dict(self._counters)

    def rewind(self, mark: dict[str, int]) -> None:
        """Back to the counters of `mark` (from `mark()` of this generator)."""
        self._counters = dict(mark)
