"""The scenario file format (documented in docs/scenarios.md).

A scenario nests what belongs together (a campaign's tiers and vouchers, a
program's members and cards) so it reads like the dashboard of a real
project; the loader flattens it into `State`. Every entity may carry an
explicit `id` to mirror a real project; missing ids are generated from the
seed. References between entities are by id (customers also by source_id).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_core import PydanticCustomError

from ...display import is_currency_code
from ...models import StackingRulesChange, StackingRulesType
from ...models.stacking_rules import MAX_CATEGORY_IDS
from ..records import (
    CodePool,
    Credentials,
    EventSchema,
    GiftState,
    ReferralSettings,
    Settings,
    ValidityTimeframe,
)
from ..records._base import Instant, Metadata, Money, Points, Record, Secret
from ..records.project import TimeZoneName, WeekStart

__all__ = ["Scenario"]


class ProjectSpec(Record):
    id: str = "proj_promolab"
    name: str = "promolab project"
    credentials: Credentials = Field(default_factory=Credentials)
    #: ISO 4217 code of the project's money, for text only (promolab.display): the
    #: loader does not copy it into the state, so state dumps do not depend on it.
    #: Only a code of the standard: its minor unit (CLP 0 digits, TND 3) decides
    #: what an amount in minor units reads as (`promolab.display.minor_digits`).
    currency: str = "USD"
    #: The project's stacking rules: the fields given, the service's defaults
    #: for the rest (docs/stacking.md). Left out: none written, the defaults apply.
    stacking_rules: StackingRulesChange | None = None
    #: Calendar of budget periods (docs/stacking.md § Budgets and limits).
    timezone: TimeZoneName = "UTC"
    week_start: WeekStart = "MONDAY"

    @field_validator("currency")
    @classmethod
    def _iso_4217(cls, value: str) -> str:
        if not is_currency_code(value):
            # a custom error: the message reads as the others do, without pydantic's "Value error, "
            raise PydanticCustomError("currency", "{value} is not an ISO 4217 currency code (three upper-case "
                                      "letters, such as 'USD', 'EUR' or 'CLP')", {"value": repr(value)})
        return value


class ClockSpec(Record):
    start: Instant | None = None


class SkuSpec(Record):
    id: str | None = None
    source_id: str | None = None
    sku: str
    price: Money | None = None
    metadata: Metadata = Field(default_factory=dict)


class ProductSpec(Record):
    id: str | None = None
    source_id: str | None = None
    name: str
    price: Money | None = None
    metadata: Metadata = Field(default_factory=dict)
    skus: list[SkuSpec] = Field(default_factory=list)


class CollectionSpec(Record):
    id: str | None = None
    name: str
    products: list[str] = Field(default_factory=list)
    skus: list[str] = Field(default_factory=list)


class CatalogueSpec(Record):
    products: list[ProductSpec] = Field(default_factory=list)
    collections: list[CollectionSpec] = Field(default_factory=list)


class CustomerSpec(Record):
    id: str | None = None
    source_id: str | None = None
    name: str | None = None
    email: str | None = None
    metadata: Metadata = Field(default_factory=dict)


class SegmentSpec(Record):
    id: str | None = None
    name: str
    customers: list[str] = Field(default_factory=list)


class CategorySpec(Record):
    """A category campaigns and tiers name by id (docs/scenarios.md § categories)."""

    id: str = Field(min_length=1, max_length=100)
    name: str = Field(min_length=1)
    #: Lower first under CATEGORY_HIERARCHY; the service's default 1, lowest 0.
    hierarchy: int = Field(default=1, ge=0, le=2**31 - 1)
    #: Never stackable (EXCLUSIVE) or always stackable (JOINT): the loader adds
    #: the category to the project's stacking rules' `exclusive_categories` /
    #: `joint_categories`, which decide it from then on. Left out: common.
    stacking_rules_type: StackingRulesType | None = None
    #: As a real project's category says it; left out, the clock's start.
    created_at: Instant | None = None


#: Category ids a campaign or a tier is in (each one of the top-level `categories`).
CategoryRefs = Annotated[list[str], Field(max_length=MAX_CATEGORY_IDS)]


class PromotionTierSpec(Record):
    id: str | None = None
    name: str
    banner: str | None = None
    hierarchy: int = Field(default=1, ge=0)
    #: The tier's own categories; left out, it is in its campaign's.
    categories: CategoryRefs = Field(default_factory=list)
    active: bool = True
    discount: dict[str, Any]
    validation_rules: dict[str, Any] | None = None
    applicable_to: dict[str, Any] | None = None
    metadata: Metadata = Field(default_factory=dict)


class PromotionStackSpec(Record):
    """Tiers of the campaign that a request redeems together, by the stack's id."""

    id: str | None = None
    name: str
    #: The campaign's tier ids, in application order (1 to 30).
    tiers: list[str] = Field(min_length=1, max_length=30)


class VoucherSpec(Record):
    id: str | None = None
    code: str = Field(min_length=1, max_length=100)
    discount: dict[str, Any] | None = None
    gift: GiftState | None = None
    active: bool = True
    start_date: Instant | None = None
    expiration_date: Instant | None = None
    additional_info: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    #: Customer (id or source_id) the code is already published to.
    holder: str | None = None
    redemption_quantity: int | None = Field(default=None, ge=0)
    #: The code's own rules and scope, as a promotion tier writes them; left
    #: out, the campaign's apply (docs/scenarios.md § Codes with scope and rules).
    validation_rules: dict[str, Any] | None = None
    applicable_to: dict[str, Any] | None = None


class CampaignSpec(Record):
    id: str | None = None
    name: str
    type: Literal["PROMOTION", "DISCOUNT_COUPONS", "GIFT_VOUCHERS", "REFERRAL_PROGRAM"] = "PROMOTION"
    active: bool = True
    start_date: Instant | None = None
    expiration_date: Instant | None = None
    validity_timeframe: ValidityTimeframe | None = None
    validity_day_of_week: list[int] | None = None
    categories: CategoryRefs = Field(default_factory=list)
    #: The service's one-category field: the same as `categories: [id]`.
    category_id: str | None = None
    #: The service's category *name*: refused with a pointer to `categories`
    #: (a name is not a reference; see `CampaignsBuilder._campaign_categories`).
    category: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    join_once: bool = False
    discount: dict[str, Any] | None = None
    gift_amount: Money | None = None
    referral: ReferralSettings | None = None
    #: Every code's rules and scope (a code may carry its own instead); a
    #: PROMOTION campaign's tiers carry theirs, a gift card has no scope.
    validation_rules: dict[str, Any] | None = None
    applicable_to: dict[str, Any] | None = None
    tiers: list[PromotionTierSpec] = Field(default_factory=list)
    stacks: list[PromotionStackSpec] = Field(default_factory=list)
    vouchers: list[VoucherSpec] = Field(default_factory=list)
    code_pool: CodePool | None = None


class RewardSpec(Record):
    id: str | None = None
    name: str
    type: Literal["MATERIAL", "DIGITAL"]
    status: Literal["ACTIVE", "DRAFT", "INACTIVE", "DELETED"] = "ACTIVE"
    metadata: Metadata = Field(default_factory=dict)
    material: dict[str, Any] | None = None
    digital: dict[str, Any] | None = None


class IncentiveSpec(Record):
    id: str | None = None
    name: str
    type: Literal["POINTS", "POINTS_PROPORTIONAL", "MATERIAL", "DIGITAL"]
    status: Literal["DRAFT", "ACTIVE", "DELETED"] = "ACTIVE"
    stock: int = Field(default=2147483647, ge=0, le=2147483647)
    points: dict[str, Any] | None = None
    points_proportional: dict[str, Any] | None = None
    material: dict[str, Any] | None = None
    digital: dict[str, Any] | None = None


class CardDefinitionSpec(Record):
    id: str | None = None
    name: str
    card_type: str = "POINTS"


class CardSpec(Record):
    id: str | None = None
    card_definition: str
    balance: Points = 0


class MemberSpec(Record):
    id: str | None = None
    customer: str
    status: Literal["ACTIVE", "INACTIVE"] = "ACTIVE"
    cards: list[CardSpec] = Field(default_factory=list)


class CostSpec(Record):
    card_definition: str
    points: Points


class AssignmentSpec(Record):
    id: str | None = None
    reward: str
    costs: list[CostSpec]
    stock: int | None = Field(default=None, ge=0, le=2147483647)


class EarningRuleSpec(Record):
    id: str | None = None
    event: str
    incentive: str
    active: bool = True
    validation_rules: dict[str, Any] | None = None


class ProgramSpec(Record):
    id: str | None = None
    name: str
    status: Literal["ACTIVE", "INACTIVE"] = "ACTIVE"
    start_date: Instant | None = None
    expiration_date: Instant | None = None
    card_definitions: list[CardDefinitionSpec] = Field(default_factory=list)
    members: list[MemberSpec] = Field(default_factory=list)
    rewards: list[AssignmentSpec] = Field(default_factory=list)
    earning_rules: list[EarningRuleSpec] = Field(default_factory=list)


class LoyaltySpec(Record):
    rewards: list[RewardSpec] = Field(default_factory=list)
    incentives: list[IncentiveSpec] = Field(default_factory=list)
    programs: list[ProgramSpec] = Field(default_factory=list)


class WebhookSpec(Record):
    id: str | None = None
    url: str | None = None
    receiver: str | None = None
    secret: Secret = SecretStr("promolab-webhook-secret")
    events: list[str] = Field(default_factory=lambda: ["EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED"])
    status: Literal["ACTIVE", "DISABLED"] = "ACTIVE"


class Scenario(Record):
    version: Literal[1] = 1
    description: str | None = None
    seed: int | None = None
    project: ProjectSpec = Field(default_factory=ProjectSpec)
    settings: Settings = Field(default_factory=Settings)
    clock: ClockSpec = Field(default_factory=ClockSpec)
    catalogue: CatalogueSpec = Field(default_factory=CatalogueSpec)
    customers: list[CustomerSpec] = Field(default_factory=list)
    segments: list[SegmentSpec] = Field(default_factory=list)
    categories: list[CategorySpec] = Field(default_factory=list)
    campaigns: list[CampaignSpec] = Field(default_factory=list)
    loyalty: LoyaltySpec = Field(default_factory=LoyaltySpec)
    event_schema: list[EventSchema] = Field(default_factory=list)
    webhooks: list[WebhookSpec] = Field(default_factory=list)
