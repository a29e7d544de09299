"""State records of the simulator (see `_base` for why they are not wire models)."""

from .balances import VoucherTransaction
from .campaigns import (
    Campaign,
    Category,
    CodePool,
    GiftState,
    PromotionStack,
    PromotionTier,
    ReferralSettings,
    ReferrerReward,
    ValidityTimeframe,
    Voucher,
)
from .catalogue import Collection, Product, Sku
from .custom_events import EventSchema, MetadataProperty, ReferralConversion, TrackedEvent
from .customers import Customer, Segment
from .exports import ExportRecord
from .loyalty import (
    Card,
    CardDefinition,
    CardTransaction,
    EarningRule,
    GrantedReward,
    Incentive,
    Member,
    Program,
    Reward,
    RewardAssignment,
    RewardCost,
)
from .project import Credentials, Project, RateLimit, Settings
from .publications import Publication
from .redemptions import RedeemedOrder, RedemptionRecord, RollbackRecord
from .sessions import SessionHold, ValidationSession
from .webhooks import DeliveryAttempt, PendingDelivery, WebhookConfig

__all__ = [
    "Campaign",
    "Card",
    "CardDefinition",
    "CardTransaction",
    "Category",
    "CodePool",
    "Collection",
    "Credentials",
    "Customer",
    "DeliveryAttempt",
    "EarningRule",
    "EventSchema",
    "ExportRecord",
    "GiftState",
    "GrantedReward",
    "Incentive",
    "Member",
    "MetadataProperty",
    "PendingDelivery",
    "Product",
    "Program",
    "Project",
    "PromotionStack",
    "PromotionTier",
    "Publication",
    "RateLimit",
    "RedeemedOrder",
    "RedemptionRecord",
    "ReferralConversion",
    "ReferralSettings",
    "ReferrerReward",
    "Reward",
    "RewardAssignment",
    "RewardCost",
    "RollbackRecord",
    "Segment",
    "SessionHold",
    "Settings",
    "Sku",
    "TrackedEvent",
    "ValidationSession",
    "ValidityTimeframe",
    "Voucher",
    "VoucherTransaction",
    "WebhookConfig",
]
