"""What cannot match between a real deployment and the simulator, and is masked.

Two services never agree on a request id, a tracking id, the wall clock they
stamp records with, or the signed asset links of a voucher. A masked field is
still compared for presence and JSON type (a timestamp that is null on one side
and set on the other is a difference), never for its value.

Ids the two sides generate (publications, vouchers, transactions, customers
created on the fly) are not masked: `ids.IdMap` pairs them, so a later line
that uses one runs on both sides and an answer that names one compares equal.

The table is data, not code: `DEFAULT_MASKS`, documented in docs/shadow.md,
overridden by passing another tuple (Python) or `--mask` / `--unmask` (CLI).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from .field_paths import compile_pattern

__all__ = ["DEFAULT_MASKS", "Mask", "Masking", "parse_mask"]


@dataclass(frozen=True, slots=True)
class Mask:
    """One row of the table: a path pattern (`field_paths`), why it is masked,
    and the operations it applies to (a glob over operation names)."""

    path: str
    reason: str = "given with --mask"
    op: str = "*"

    def label(self) -> str:
        """`op:path`, or the path alone for every operation (what `--mask` reads)."""
        return self.path if self.op == "*" else f"{self.op}:{self.path}"


#: The default table (docs/shadow.md, "Masking").
DEFAULT_MASKS: tuple[Mask, ...] = (
    Mask("request_id", "drawn afresh for every error answer"),
    Mask("**.tracking_id", "a tracking id is the service's own token"),
    Mask("**.created_at", "stamped by the service's clock, not the script's"),
    Mask("**.updated_at", "stamped by the service's clock, not the script's"),
    Mask("**.assets", "QR and barcode links are signed per voucher by the service"),
)


def parse_mask(text: str) -> Mask:
    """`op:path` or `path` (every operation), as `--mask` takes it."""
    op, sep, path = text.partition(":")
    if not sep:
        op, path = "*", text
    if not path.strip() or not op.strip():
        raise ValueError(f"a mask is PATH or OP:PATH (got {text!r})")
    return Mask(path.strip(), op=op.strip())


class Masking:
    """A masking table, compiled: which row (if any) masks a field."""

    def __init__(self, masks: Iterable[Mask] = DEFAULT_MASKS) -> None:
        self.masks: tuple[Mask, ...] = tuple(masks)
        self._compiled = [(m, compile_pattern(m.path)) for m in self.masks]

    def mask_for(self, op: str, path: str) -> Mask | None:
        """The first row masking `path` in an answer of `op`."""
        for mask, pattern in self._compiled:
            if (mask.op == "*" or fnmatchcase(op, mask.op)) and pattern.fullmatch(path):
                return mask
        return None

    def overridden(self, add: Sequence[str] = (), remove: Sequence[str] = ()) -> Masking:
        """This table less the rows labelled as in `remove`, plus `add` (CLI
        texts). A `remove` that names no row is an error: a typo would
        otherwise leave the row in place silently."""
        labels = {m.label() for m in self.masks}
        unknown = [r for r in remove if r not in labels]
        if unknown:
            raise ValueError(f"--unmask {unknown[0]!r} names no mask; the table has: {', '.join(sorted(labels))}")
        kept = [m for m in self.masks if m.label() not in set(remove)]
        return Masking([*kept, *(parse_mask(text) for text in add)])
