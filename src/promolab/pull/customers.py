"""The customers and segments of a pulled project.

The service lists customers but not segments: a segment is found through the
customers in it (each customer's segments), then read itself. A scenario's
segment is static (its members listed); an auto-update segment becomes the
static segment of the members it had when pulled, and the report says so.
What the service derives from a customer's activity (`summary`, `loyalty`,
`referrals`, `system_metadata`) is the simulator's to derive again.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import models
from .unexpressed import Unexpressed, leftovers, spec

__all__ = ["Customers", "customers_part", "merged_order"]

_KEPT = ("id", "source_id", "name", "email", "metadata")
_DERIVED = ("summary", "loyalty", "referrals", "system_metadata", "created_at", "updated_at")


@dataclass(frozen=True, slots=True)
class Customers:
    """The scenario's `customers` and `segments` sections, and what they could not hold."""

    customers: list[dict[str, Any]]
    segments: list[dict[str, Any]]
    unexpressed: list[Unexpressed]


def _customer(customer: models.CustomerProfile, out: list[Unexpressed]) -> dict[str, Any]:
    out += leftovers("customer", customer, _KEPT, _DERIVED)
    return spec({"id": customer.id, "source_id": customer.source_id, "name": customer.name, "email": customer.email,
                 "metadata": customer.metadata})


def merged_order(sequences: Sequence[Sequence[str]]) -> list[str]:
    """One order of every id that keeps the order of each sequence (each
    customer's segments come in the project's order of segments, so together
    they say it as far as it can be known); ids no sequence orders keep the
    order they were first met in. A target whose sequences contradict each
    other gets the first-met order for the ids in the cycle."""
    first: dict[str, int] = {}
    after: dict[str, set[str]] = {}
    for sequence in sequences:
        for before, later in itertools.pairwise(sequence):
            after.setdefault(before, set()).add(later)
        for sid in sequence:
            first.setdefault(sid, len(first))
    waiting = {sid: 0 for sid in first}
    for later_ids in after.values():
        for later in later_ids:
            waiting[later] += 1
    ready = sorted((sid for sid, count in waiting.items() if count == 0), key=first.__getitem__)
    merged: list[str] = []
    while len(merged) < len(first):
        if not ready:  # a cycle: take the earliest-met id still waiting
            ready = [min((sid for sid in first if waiting[sid] > 0), key=first.__getitem__)]
            waiting[ready[0]] = 0
        sid = ready.pop(0)
        merged.append(sid)
        waiting[sid] = -1
        for later in sorted(after.get(sid, ()), key=first.__getitem__):
            if waiting[later] > 0:
                waiting[later] -= 1
                if waiting[later] == 0:
                    ready.append(later)
                    ready.sort(key=first.__getitem__)
    return merged


def customers_part(customers: Sequence[models.CustomerProfile], segments: Sequence[models.Segment],
                   members: Mapping[str, Sequence[str]]) -> Customers:
    """The sections of `customers`, and of `segments` with `members[segment id]` (customer ids, listed order)."""
    out: list[Unexpressed] = []
    listed = [_customer(c, out) for c in customers]
    sections = []
    for segment in segments:
        if segment.type != "static":
            out.append(Unexpressed("segment", segment.id, "filter",
                                   f"a scenario's segments are static: this {segment.type} one keeps the "
                                   f"{len(members.get(segment.id, ())):,} customers it had when pulled"))
        sections.append({"id": segment.id, "name": segment.name, "customers": list(members.get(segment.id, ()))})
    return Customers(listed, sections, out)
