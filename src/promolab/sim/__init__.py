"""The simulator: state, clock, ids, operations, webhooks, journal (prices with promolab.engine).

This module is the simulator's one public face for the layers above it
(analysis, widgets, replay, shadow, http, and the package's top modules): they
import from `promolab.sim`, never from one of its modules (an import-linter
contract in pyproject.toml forbids it). It exports what those layers read and
nothing else, so a reader sees the simulator's surface in one place and its
modules stay free to move. Inside the package, modules import each other's
modules (`from .clock import ...`), never this face, which would be an import
cycle.

What it holds, by what callers do with it: the `Simulator` and its
operations (`BY_NAME`, the few constants the layers above call by name,
`Operation`, `parse` for a body, the `SimError` refusals); instants as the
wire writes them (`parse_instant`, `format_instant`); scenario files and
journals; pricing from the state (`pricing_view`, `customer_context`,
`usage_of`, sessions' `held`); codes and publication; several redeemables on
one order (`resolve_redeemables` and its checks, what a redemption takes); the
why-not explanations and the member view of the control API; and the webhook
constants the OpenAPI document states.

The state's records keep their own names in `sim/records/` (`records.Voucher`);
the one this face exports is `VoucherRecord`, so that a caller never mistakes it
for the wire model `models.Voucher`.
"""

from .clock import TimeOutOfRange, format_instant, parse_instant
from .explanations import NOT_QUALIFIED_COLUMNS, WHY_NOT_COLUMNS, why_not, why_not_qualified
from .export_csv import VALUE_FIELD as EXPORT_VALUE_FIELD
from .ids import PREFIXES as ID_PREFIXES
from .journal import JournalError, resume_journal
from .loyalty_view import member_view
from .operation import Operation
from .operations import BY_NAME
from .operations.publishing import PUBLISH
from .operations.snapshots import RESET, RESTORE
from .operations.stacking_rules import stacking_rules_in_force
from .operations.validation import VALIDATE
from .promotions import PricingView, customer_context, pricing_view
from .publishing import NO_CODE_LEFT
from .publishing_lookups import free_codes, voucher_by_code
from .records import Credentials, DeliveryAttempt
from .records import Voucher as VoucherRecord
from .refusals import InvalidPayload, InvalidQueryParams, NotFound, SimError
from .render.loyalty import CAMPAIGN_NAME_JOIN, V1_CALCULATION
from .request_parsing import parse
from .scenario import ScenarioError, read_scenario, with_changes
from .sessions import Held, held
from .simulator import Simulator
from .stack_redeemables import (
    QUANTITY_EXCEEDED,
    ResolvedRedeemable,
    check_redeemables,
    expand_stack,
    redeemed_as,
    refuse_the_same_code_twice,
    resolve_redeemables,
)
from .stack_spending import credits_of, taken
from .usage import usage_of
from .validation_rule_objects import InlineTerms, inline_terms
from .webhooks import MAX_ATTEMPTS, SIGNATURE_HEADER

__all__ = [
    "BY_NAME",
    "CAMPAIGN_NAME_JOIN",
    "EXPORT_VALUE_FIELD",
    "ID_PREFIXES",
    "MAX_ATTEMPTS",
    "NOT_QUALIFIED_COLUMNS",
    "NO_CODE_LEFT",
    "PUBLISH",
    "QUANTITY_EXCEEDED",
    "RESET",
    "RESTORE",
    "SIGNATURE_HEADER",
    "V1_CALCULATION",
    "VALIDATE",
    "WHY_NOT_COLUMNS",
    "Credentials",
    "DeliveryAttempt",
    "Held",
    "InlineTerms",
    "InvalidPayload",
    "InvalidQueryParams",
    "JournalError",
    "NotFound",
    "Operation",
    "PricingView",
    "ResolvedRedeemable",
    "ScenarioError",
    "SimError",
    "Simulator",
    "TimeOutOfRange",
    "VoucherRecord",
    "check_redeemables",
    "credits_of",
    "customer_context",
    "expand_stack",
    "format_instant",
    "free_codes",
    "held",
    "inline_terms",
    "member_view",
    "parse",
    "parse_instant",
    "pricing_view",
    "read_scenario",
    "redeemed_as",
    "refuse_the_same_code_twice",
    "resolve_redeemables",
    "resume_journal",
    "stacking_rules_in_force",
    "taken",
    "usage_of",
    "voucher_by_code",
    "why_not",
    "why_not_qualified",
    "with_changes",
]
