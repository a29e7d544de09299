"""Pydantic v2 wire models of every resource, request and error in the service interface.

``model_dump(mode="json")`` / ``model_dump_json()`` give the wire JSON: optional fields
that are "present only when" are dropped when unset, nullable ones are sent as ``null``
(see ``_base.WireModel``). Response models keep unknown fields; request models reject
them. The models know nothing about the simulator or HTTP.
"""

from ._base import RequestModel, WireModel
from .balance import AddBalanceRequest, BalanceRelatedObject, BalanceResult, BalanceType
from .campaign_summary import CampaignSummary, CampaignTransactionList
from .campaigns import (
    AccessSettingsAssignmentList,
    Campaign,
    CampaignKind,
    CampaignList,
    CampaignRedemptionLimit,
    CampaignVoucher,
)
from .categories import Category, CategoryList, CategoryWithStackingRulesType, StackingRulesType
from .common import (
    INT32_MAX,
    INT64_MAX,
    INT64_MIN,
    IdRef,
    Int64,
    IsoDate,
    ListEnvelope,
    Metadata,
    Money,
    NonNegativeInt64,
    Timestamp,
    format_timestamp,
)
from .custom_events import (
    CustomEventRequest,
    CustomEventResult,
    EventCustomer,
    LoyaltyInput,
    ReferralInput,
)
from .customer_profiles import (
    CustomerList,
    CustomerLoyalty,
    CustomerOrdersSummary,
    CustomerProfile,
    CustomerRedemptionsSummary,
    CustomerReferrals,
    CustomerSummary,
)
from .customers import Customer, CustomerInput, IdentifiedCustomerInput
from .discounts import (
    AmountDiscount,
    AmountEffect,
    Discount,
    DiscountAdapter,
    DiscountProduct,
    DiscountSku,
    DiscountType,
    DiscountUnitEntry,
    FixedDiscount,
    FixedEffect,
    PercentDiscount,
    PercentEffect,
    UnitDiscount,
    UnitEffect,
    UnitManyDiscount,
)
from .errors import ErrorBody
from .exports import (
    Export,
    ExportedObject,
    ExportList,
    ExportParameters,
    ExportRequest,
    ExportResult,
)
from .history import OrderList, RedemptionList
from .incentives import (
    ApplicableToObjectType,
    CalculationType,
    Digital,
    DigitalType,
    DiscountCoupons,
    GiftVouchers,
    Incentive,
    IncentivePoints,
    IncentiveStatus,
    IncentiveType,
    Material,
    MaterialProduct,
    MaterialSku,
    MaterialType,
    PointsProportional,
    ProportionalApplicableTo,
    ProportionalCustomer,
    ProportionalEvery,
    ProportionalItems,
    ProportionalMetadata,
    ProportionalOrder,
    ProportionalOrderItems,
)
from .loyalty_campaigns import (
    LoyaltyCampaign,
    LoyaltyCampaignList,
    LoyaltyCampaignVoucher,
    LoyaltyEarningRule,
    LoyaltyEarningRuleList,
    LoyaltyMember,
    LoyaltyMemberList,
    LoyaltyRewardAssignment,
    LoyaltyRewardAssignmentList,
    LoyaltyTier,
    LoyaltyTierList,
)
from .orders import (
    Order,
    OrderInput,
    OrderItem,
    OrderItemInput,
    OrderItemProduct,
    OrderItemProductInput,
    OrderItemSku,
    OrderItemSkuInput,
    Quantity,
)
from .products import (
    BareProduct,
    CollectionItem,
    CollectionProductList,
    CollectionSku,
    Product,
    ProductCollection,
    ProductCollectionList,
    ProductList,
    ProductSkus,
    Sku,
    SkuList,
)
from .project_rewards import ProjectReward, ProjectRewardList
from .promotions import (
    ApplicableTo,
    ApplicableToEffect,
    ApplicableToList,
    PromotionTier,
    TierCampaign,
    ValidationCustomer,
    ValidationOptions,
    ValidationRequest,
    ValidationResponse,
)
from .publications import Publication, PublishCampaign, PublishCustomer, PublishRequest
from .qualifications import (
    QUALIFICATION_SCENARIOS,
    QualificationGift,
    QualificationOptions,
    QualificationRequest,
    QualificationResponse,
    QualificationResult,
    QualificationSession,
    QualifiedRedeemable,
    QualifiedRedeemables,
    QualifiedStackTier,
)
from .redemptions import (
    OrderRedemptionEntry,
    Redemption,
    RedemptionChannel,
    RedemptionResponse,
    RedemptionRollback,
    RollbackRequest,
    RollbackResponse,
    StoredOrder,
)
from .rendered import Rendered
from .rewards import (
    PurchaseStatus,
    Reward,
    RewardPurchaseRequest,
    RewardPurchaseResult,
    RewardStatus,
    RewardType,
)
from .segments import CustomerSegmentList, Segment, SimpleSegment
from .stacked_validations import (
    RedeemableDetails,
    RedeemableGift,
    RedeemableGiftResult,
    RedeemableInput,
    RedeemableOutcome,
    RedeemableResult,
    RedeemableReward,
    SessionInput,
    SessionLock,
    StackableOptions,
    StackedValidationRequest,
    StackedValidationResponse,
)
from .stacking_rules import (
    ProjectStackingRules,
    StackingRules,
    StackingRulesChange,
    StackingRulesList,
)
from .tier_definitions import (
    PromotionStack,
    PromotionStackList,
    PromotionStackTiers,
    TierAction,
    TierDefinition,
    TierDefinitionCampaign,
    TierDefinitionList,
)
from .transactions import (
    CardTransaction,
    CardTransactionDetails,
    CardTransactionStatus,
    CardTransactionType,
    Rejection,
    TransactionPoints,
)
from .validation_rules import (
    ValidationRule,
    ValidationRuleAssignment,
    ValidationRuleAssignmentList,
    ValidationRuleError,
    ValidationRuleList,
    ValidationRuleType,
)
from .vouchers import (
    Asset,
    Gift,
    GiftEffect,
    ValidityTimeframe,
    Voucher,
    VoucherAssets,
    VoucherList,
    VoucherPublishList,
    VoucherRedemptionList,
    VoucherType,
)
from .webhooks import (
    GIFT_BALANCE_ADDED,
    GIFT_BALANCE_ADDED_EVENT_TYPE,
    WEBHOOK_VERSION,
    WEBHOOK_VERSION_HEADER,
    BalanceOperationType,
    CampaignGift,
    CampaignType,
    CampaignVoucherRedemption,
    CodeConfig,
    EventApiKey,
    EventChannel,
    EventSource,
    EventUser,
    GiftBalanceAddedData,
    SimpleCampaign,
    SimpleCampaignVoucher,
    SimpleVoucher,
    SimpleVoucherRedemption,
    VoucherBalance,
    VoucherTransaction,
    VoucherTransactionDetails,
    VoucherTransactionType,
    WebhookEnvelope,
    WebhookEvent,
    WebhookSource,
)

__all__ = [  # one block of names, sorted (ruff RUF022): the imports above say where each lives
    "GIFT_BALANCE_ADDED", "GIFT_BALANCE_ADDED_EVENT_TYPE", "INT32_MAX", "INT64_MAX", "INT64_MIN",
    "QUALIFICATION_SCENARIOS", "WEBHOOK_VERSION", "WEBHOOK_VERSION_HEADER", "AccessSettingsAssignmentList",
    "AddBalanceRequest", "AmountDiscount", "AmountEffect", "ApplicableTo", "ApplicableToEffect",
    "ApplicableToList", "ApplicableToObjectType", "Asset", "BalanceOperationType", "BalanceRelatedObject",
    "BalanceResult", "BalanceType", "BareProduct", "CalculationType", "Campaign", "CampaignGift", "CampaignKind",
    "CampaignList", "CampaignRedemptionLimit", "CampaignSummary", "CampaignTransactionList", "CampaignType",
    "CampaignVoucher", "CampaignVoucherRedemption", "CardTransaction", "CardTransactionDetails",
    "CardTransactionStatus", "CardTransactionType", "Category", "CategoryList", "CategoryWithStackingRulesType",
    "CodeConfig", "CollectionItem", "CollectionProductList", "CollectionSku", "CustomEventRequest",
    "CustomEventResult", "Customer", "CustomerInput", "CustomerList", "CustomerLoyalty", "CustomerOrdersSummary",
    "CustomerProfile", "CustomerRedemptionsSummary", "CustomerReferrals", "CustomerSegmentList", "CustomerSummary",
    "Digital", "DigitalType", "Discount", "DiscountAdapter", "DiscountCoupons", "DiscountProduct", "DiscountSku",
    "DiscountType", "DiscountUnitEntry", "ErrorBody", "EventApiKey", "EventChannel", "EventCustomer",
    "EventSource", "EventUser", "Export", "ExportList", "ExportParameters", "ExportRequest", "ExportResult",
    "ExportedObject", "FixedDiscount", "FixedEffect", "Gift", "GiftBalanceAddedData", "GiftEffect", "GiftVouchers",
    "IdRef", "IdentifiedCustomerInput", "Incentive", "IncentivePoints", "IncentiveStatus", "IncentiveType",
    "Int64", "IsoDate", "ListEnvelope", "LoyaltyCampaign", "LoyaltyCampaignList", "LoyaltyCampaignVoucher",
    "LoyaltyEarningRule", "LoyaltyEarningRuleList", "LoyaltyInput", "LoyaltyMember", "LoyaltyMemberList",
    "LoyaltyRewardAssignment", "LoyaltyRewardAssignmentList", "LoyaltyTier", "LoyaltyTierList", "Material",
    "MaterialProduct", "MaterialSku", "MaterialType", "Metadata", "Money", "NonNegativeInt64", "Order",
    "OrderInput", "OrderItem", "OrderItemInput", "OrderItemProduct", "OrderItemProductInput", "OrderItemSku",
    "OrderItemSkuInput", "OrderList", "OrderRedemptionEntry", "PercentDiscount", "PercentEffect",
    "PointsProportional", "Product", "ProductCollection", "ProductCollectionList", "ProductList", "ProductSkus",
    "ProjectReward", "ProjectRewardList", "ProjectStackingRules", "PromotionStack", "PromotionStackList",
    "PromotionStackTiers", "PromotionTier", "ProportionalApplicableTo", "ProportionalCustomer",
    "ProportionalEvery", "ProportionalItems", "ProportionalMetadata", "ProportionalOrder",
    "ProportionalOrderItems", "Publication", "PublishCampaign", "PublishCustomer", "PublishRequest",
    "PurchaseStatus", "QualificationGift", "QualificationOptions", "QualificationRequest", "QualificationResponse",
    "QualificationResult", "QualificationSession", "QualifiedRedeemable", "QualifiedRedeemables",
    "QualifiedStackTier", "Quantity", "RedeemableDetails", "RedeemableGift", "RedeemableGiftResult",
    "RedeemableInput", "RedeemableOutcome", "RedeemableResult", "RedeemableReward", "Redemption",
    "RedemptionChannel", "RedemptionList", "RedemptionResponse", "RedemptionRollback", "ReferralInput",
    "Rejection", "Rendered", "RequestModel", "Reward", "RewardPurchaseRequest", "RewardPurchaseResult",
    "RewardStatus", "RewardType", "RollbackRequest", "RollbackResponse", "Segment", "SessionInput", "SessionLock",
    "SimpleCampaign", "SimpleCampaignVoucher", "SimpleSegment", "SimpleVoucher", "SimpleVoucherRedemption", "Sku",
    "SkuList", "StackableOptions", "StackedValidationRequest", "StackedValidationResponse", "StackingRules",
    "StackingRulesChange", "StackingRulesList", "StackingRulesType", "StoredOrder", "TierAction", "TierCampaign",
    "TierDefinition", "TierDefinitionCampaign", "TierDefinitionList", "Timestamp", "TransactionPoints",
    "UnitDiscount", "UnitEffect", "UnitManyDiscount", "ValidationCustomer", "ValidationOptions",
    "ValidationRequest", "ValidationResponse", "ValidationRule", "ValidationRuleAssignment",
    "ValidationRuleAssignmentList", "ValidationRuleError", "ValidationRuleList", "ValidationRuleType",
    "ValidityTimeframe", "Voucher", "VoucherAssets", "VoucherBalance", "VoucherList", "VoucherPublishList",
    "VoucherRedemptionList", "VoucherTransaction", "VoucherTransactionDetails", "VoucherTransactionType",
    "VoucherType", "WebhookEnvelope", "WebhookEvent", "WebhookSource", "WireModel", "format_timestamp",
]
