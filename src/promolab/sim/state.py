"""All of a simulator's state in one serialisable tree.

Entities live in insertion-ordered dicts keyed by id: insertion order is
creation order, which is what makes dumps byte-stable and tier ordering
("campaign creation order, then hierarchy") a property of the data. Secondary
indexes (code -> voucher, source_id -> customer) are derived, never stored, so
a snapshot cannot hold an index that disagrees with the data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import Field

from ..models import ProjectStackingRules
from .records import (
    Campaign,
    Card,
    CardDefinition,
    CardTransaction,
    Category,
    Collection,
    Customer,
    DeliveryAttempt,
    EarningRule,
    EventSchema,
    ExportRecord,
    GrantedReward,
    Incentive,
    Member,
    PendingDelivery,
    Product,
    Program,
    Project,
    PromotionStack,
    PromotionTier,
    Publication,
    RedeemedOrder,
    RedemptionRecord,
    ReferralConversion,
    Reward,
    RewardAssignment,
    RollbackRecord,
    Segment,
    Settings,
    Sku,
    TrackedEvent,
    ValidationSession,
    Voucher,
    VoucherTransaction,
    WebhookConfig,
)
from .records._base import Record

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = ["Indexes", "State", "derived"]


def _empty(value: dict[str, Any]) -> bool:
    return not value


class State(Record):
    project: Project = Field(default_factory=Project)
    settings: Settings = Field(default_factory=Settings)
    products: dict[str, Product] = Field(default_factory=dict)
    skus: dict[str, Sku] = Field(default_factory=dict)
    collections: dict[str, Collection] = Field(default_factory=dict)
    customers: dict[str, Customer] = Field(default_factory=dict)
    segments: dict[str, Segment] = Field(default_factory=dict)
    #: The project's categories (campaigns and tiers name them by id). Left
    #: out of dumps while empty, for the same reason as `stacking_rules`.
    categories: dict[str, Category] = Field(default_factory=dict, exclude_if=_empty)
    campaigns: dict[str, Campaign] = Field(default_factory=dict)
    tiers: dict[str, PromotionTier] = Field(default_factory=dict)
    vouchers: dict[str, Voucher] = Field(default_factory=dict)
    publications: dict[str, Publication] = Field(default_factory=dict)
    voucher_transactions: dict[str, VoucherTransaction] = Field(default_factory=dict)
    programs: dict[str, Program] = Field(default_factory=dict)
    card_definitions: dict[str, CardDefinition] = Field(default_factory=dict)
    members: dict[str, Member] = Field(default_factory=dict)
    cards: dict[str, Card] = Field(default_factory=dict)
    rewards: dict[str, Reward] = Field(default_factory=dict)
    reward_assignments: dict[str, RewardAssignment] = Field(default_factory=dict)
    incentives: dict[str, Incentive] = Field(default_factory=dict)
    earning_rules: dict[str, EarningRule] = Field(default_factory=dict)
    card_transactions: dict[str, CardTransaction] = Field(default_factory=dict)
    granted_rewards: dict[str, GrantedReward] = Field(default_factory=dict)
    event_schemas: dict[str, EventSchema] = Field(default_factory=dict)
    events: dict[str, TrackedEvent] = Field(default_factory=dict)
    referral_conversions: dict[str, ReferralConversion] = Field(default_factory=dict)
    webhooks: dict[str, WebhookConfig] = Field(default_factory=dict)
    pending_deliveries: list[PendingDelivery] = Field(default_factory=list)
    webhook_deliveries: list[DeliveryAttempt] = Field(default_factory=list)
    #: Written through the management API or the scenario; None: the defaults
    #: apply. Left out of dumps while None, so that a state without them
    #: (every scenario before they existed) dumps, and fingerprints, as before.
    stacking_rules: ProjectStackingRules | None = Field(default=None, exclude_if=lambda value: value is None)
    #: Stacked redemptions, the orders they spent on, their rollbacks. Left
    #: out of dumps while empty, for the same reason as `stacking_rules`.
    orders: dict[str, RedeemedOrder] = Field(default_factory=dict, exclude_if=_empty)
    redemptions: dict[str, RedemptionRecord] = Field(default_factory=dict, exclude_if=_empty)
    rollbacks: dict[str, RollbackRecord] = Field(default_factory=dict, exclude_if=_empty)
    #: Promotion stacks of the scenario's campaigns.
    promotion_stacks: dict[str, PromotionStack] = Field(default_factory=dict, exclude_if=_empty)
    #: Validation sessions (LOCK) by key.
    sessions: dict[str, ValidationSession] = Field(default_factory=dict, exclude_if=_empty)
    #: Exports and their CSV, by id (docs/decisions.md, "Exports").
    exports: dict[str, ExportRecord] = Field(default_factory=dict, exclude_if=_empty)

    def dump(self) -> dict[str, Any]:
        """JSON-ready image with secrets in clear (a snapshot must restore a
        working project); `Simulator.dump()` is the redacted public view."""
        return self.model_dump(mode="json", context={"reveal": True})


class Indexes:
    """Lookups derived from `State`; rebuilt after load/restore, kept in step by
    the operations that create the indexed entities.

    A simulator gets a new `Indexes` whenever its state object is replaced
    (construction, `restore`, `reset`, `load_snapshot`): that is the one place
    where every derived lookup is invalidated. Besides the four lookups below,
    `derived` holds lookups that other modules build lazily for their hot paths
    (see `derived`); none of it is ever part of a snapshot.
    """

    __slots__ = ("customer_by_source", "derived", "product_by_source", "sku_by_source", "state", "voucher_by_code")

    def __init__(self, state: State) -> None:
        self.state = state
        self.voucher_by_code = {v.code: v.id for v in state.vouchers.values()}
        self.customer_by_source = {
            c.source_id: c.id for c in state.customers.values() if c.source_id is not None
        }
        self.product_by_source = {
            p.source_id: p.id for p in state.products.values() if p.source_id is not None
        }
        self.sku_by_source = {s.source_id: s.id for s in state.skus.values() if s.source_id is not None}
        self.derived: dict[str, Any] = {}


T = TypeVar("T")


def derived(sim: Simulator, key: str, build: Callable[[State], T]) -> T:
    """The lookup `key` of the simulator's current state, built by `build(state)`
    on first use and kept until the state object is replaced.

    The object returned belongs to the calling module, which keeps it in step
    with the records it indexes (and checks it against them where state may be
    changed behind its back, e.g. by a test poking at records).
    """
    indexes = sim.indexes
    if indexes.state is not sim.state:  # pragma: no cover - state swapped without a new Indexes
        indexes = sim.indexes = Indexes(sim.state)
    found = indexes.derived.get(key)
    if found is None:
        found = indexes.derived[key] = build(sim.state)
    return found
