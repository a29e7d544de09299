"""What earning keeps per state object, and the shape of each entry.

An event considers every earning rule bound to it; without these caches it
would compile each rule's validation rules, build its customer's context and
convert each program's validity window to UTC, every time. They live in one
`derived` object (a restore or reset starts over), fetched once per event;
each entry is checked on use against the records it was made from (see the
function that uses it: `validation.compiled_rules`,
`validation._customer_context`, `validation._blank_order`,
`credits._open_now`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from ...engine import CustomerContext, NormalizedOrder, RuleSet
from ..records import Program
from ..state import derived

if TYPE_CHECKING:
    from ..simulator import Simulator
    from ..state import State

__all__ = ["CACHE_KEY", "Compiled", "StateCaches", "Window", "state_caches"]

#: The `derived` key of earning's caches.
CACHE_KEY = "earning"


class Compiled(NamedTuple):
    #: The mapping the rules were compiled from (the rule's own, by identity).
    source: Mapping[str, Any]
    rules: RuleSet
    #: Whether a rule may read the customer's segments.
    reads_segments: bool
    #: Whether a rule may read the event (its order or metadata): not when
    #: every rule reads the customer only (`customer.metadata`, `customer.segment`).
    reads_event: bool


class Window(NamedTuple):
    """A program's validity window as stored, and the same instants in UTC."""

    program: Program
    start_date: datetime | None
    expiration_date: datetime | None
    start_utc: datetime | None
    expiration_utc: datetime | None


class StateCaches:
    """What earning keeps per state object (`derived`: a restore or reset
    starts over), each entry checked on use against the records it was made
    from (see the function that uses it). One object, fetched once per event."""

    __slots__ = ("blank_order", "compiled", "contexts", "windows")

    def __init__(self, state: State) -> None:
        #: earning rule id -> `compiled_rules`
        self.compiled: dict[str, Compiled] = {}
        #: customer id -> (context, the metadata mapping it holds): `_customer_context`
        self.contexts: dict[str, tuple[CustomerContext, Any]] = {}
        #: program id -> `Window`: `_open_now`
        self.windows: dict[str, Window] = {}
        #: `_blank_order`
        self.blank_order: NormalizedOrder | None = None


def state_caches(sim: Simulator) -> StateCaches:
    return derived(sim, CACHE_KEY, StateCaches)
