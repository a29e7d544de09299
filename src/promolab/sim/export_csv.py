"""An export's CSV: which fields each exported object has, its parameters checked, its bytes.

The fields, their order and the `order` values are the service's documents'
(`ExportVoucherFields` and the like); the default fields are those the
service's "Create Export" documents list for a request without `fields`.
A request is checked whole before anything is made (`plan`): an unknown
field is the service's 400 `invalid_export_fields` listing the allowed
ones, a bad order or filter a 400 `invalid_export_params` naming it.

The bytes are deterministic: rows in the requested order (ties in the order
the objects were made), cells written by one rule (`cell`): None empty,
booleans `true`/`false`, money and points as the integers the API gives,
instants as the API writes them (UTC, milliseconds, `Z`), objects and lists
as compact JSON; RFC 4180 quoting and line ends (`\\r\\n`).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .clock import parse_instant
from .refusals import BadRequest

__all__ = ["KINDS", "VALUE_FIELD", "Cell", "ExportKind", "ExportPlan", "Row", "cell", "plan", "write_csv"]

#: A voucher row's `value` column, by its discount's type: the discount field it holds (the exporter
#: writes it from that field, a pull reads it back into it).
VALUE_FIELD = {"AMOUNT": "amount_off", "PERCENT": "percent_off", "UNIT": "unit_off", "FIXED": "fixed_amount"}

Cell = str | int | float | bool | list[Any] | dict[str, Any] | None
Row = dict[str, Cell]


@dataclass(frozen=True, slots=True)
class ExportKind:
    """One exported object: its fields (the service's order), defaults and sort keys."""

    name: str
    fields: tuple[str, ...]
    defaults: tuple[str, ...]
    #: `order` values without their `-`, and the row key each sorts by.
    sorts: Mapping[str, str]
    default_order: str
    #: Filter names that are not a field of the row, and the row key each reads.
    filter_keys: Mapping[str, str] = field(default_factory=dict)


def _kind(name: str, fields: str, defaults: str, sorts: str, default_order: str, **filter_keys: str) -> ExportKind:
    def sort_of(item: str) -> tuple[str, str]:
        order, _, key = item.partition(":")
        return order, key or order
    return ExportKind(name, tuple(fields.split()), tuple(defaults.split()), dict(map(sort_of, sorts.split())),
                      default_order, filter_keys)


KINDS: dict[str, ExportKind] = {kind.name: kind for kind in (
    _kind("voucher",
          "code voucher_type value formula discount_type campaign category start_date expiration_date gift_balance "
          "loyalty_balance redemption_quantity redemption_count active qr_code bar_code metadata id is_referral_code "
          "created_at updated_at validity_timeframe_interval validity_timeframe_duration validity_day_of_week "
          "discount_amount_limit campaign_id additional_info customer_id discount_effect discount_unit_type "
          "discount_unit_effect validation_rules_id customer_source_id",
          "code voucher_type value discount_type", "created_at updated_at code", "-created_at",
          holder_id="customer_id", published_for_customer_id="customer_id"),
    _kind("redemption",
          "id object date voucher_code campaign promotion_tier_id customer_id customer_source_id customer_name "
          "tracking_id order_id order_amount gift_amount loyalty_points result failure_code failure_message metadata",
          "id object voucher_code customer_id date result", "id voucher_code tracking_id customer_id created_at:date",
          "-created_at", created_at="date", campaign="campaign_id", customer="customer_id", voucher="voucher_code",
          campaign_name="campaign"),
    _kind("customer",
          "name id description email source_id created_at address_city address_state address_line_1 address_line_2 "
          "address_country address_postal_code redemptions_total_redeemed redemptions_total_failed "
          "redemptions_total_succeeded redemptions_total_rolled_back redemptions_total_rollback_failed "
          "redemptions_total_rollback_succeeded orders_total_amount orders_total_count orders_average_amount "
          "orders_last_order_amount orders_last_order_date loyalty_points loyalty_referred_customers updated_at "
          "phone birthday metadata birthdate",
          "name source_id", "name id email source_id created_at updated_at", "-created_at", city="address_city"),
    _kind("order",
          "id source_id created_at updated_at status amount discount_amount items_discount_amount "
          "total_discount_amount total_amount customer_id referrer_id metadata",
          "id source_id status", "created_at updated_at status", "-created_at"),
    _kind("voucher_transactions",
          "id campaign_id voucher_id type source_id reason source balance amount related_transaction_id created_at "
          "details",
          "id type source_id reason source balance amount created_at", "created_at", "-created_at"),
    _kind("points_expiration", "id campaign_id voucher_id points status expires_at",
          "id campaign_id voucher_id status expires_at points", "expires_at", "-expires_at"),
)}

_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "$is": lambda value, given: value == given,
    "$is_not": lambda value, given: value != given,
    "$in": lambda value, given: value in given,
    "$not_in": lambda value, given: value not in given,
    "$more_than": lambda value, given: value is not None and value > given,
    "$less_than": lambda value, given: value is not None and value < given,
    "$more_than_equal": lambda value, given: value is not None and value >= given,
    "$less_than_equal": lambda value, given: value is not None and value <= given,
    "$after": lambda value, given: value is not None and parse_instant(value) > given,
    "$before": lambda value, given: value is not None and parse_instant(value) < given,
    "$is_unknown": lambda value, given: (value is None) == bool(given),
}
_INSTANT_CONDITIONS = frozenset({"$after", "$before"})
_LIST_CONDITIONS = frozenset({"$in", "$not_in"})


def _params_error(details: str) -> BadRequest:
    return BadRequest(details, key="invalid_export_params", message="Invalid export params")


@dataclass(frozen=True, slots=True)
class Condition:
    """One test of one row key (`$is` and the like), its value made comparable once."""

    key: str
    test: Callable[[Any, Any], bool]
    given: Any

    def holds(self, row: Row) -> bool:
        value = row.get(self.key)
        try:
            # a condition may name one value for a list field (categories, days of week)
            if isinstance(value, list) and not isinstance(self.given, list):
                return any(self.test(item, self.given) for item in value)
            return self.test(value, self.given)
        except (TypeError, ValueError):  # a number compared with text, say: no match, not a failure
            return False


@dataclass(frozen=True, slots=True)
class ExportPlan:
    """What an export writes: the columns, the rows' conditions and junction, the order."""

    kind: ExportKind
    fields: tuple[str, ...]
    order: str
    conditions: tuple[Condition, ...]
    junction: str
    #: The filters as asked (with their junction): what the export object shows.
    filters: dict[str, Any]
    #: Vouchers only: those of this campaign (besides the filters).
    campaign_id: str | None = None

    def keep(self, row: Row) -> bool:
        if self.campaign_id is not None and row.get("campaign_id") != self.campaign_id:
            return False
        if not self.conditions:
            return True
        tests = (condition.holds(row) for condition in self.conditions)
        return all(tests) if self.junction == "and" else any(tests)

    def select(self, rows: Sequence[Row]) -> list[Row]:
        """The rows kept, in the plan's order (ties in the order given; None first ascending)."""
        kept = [row for row in rows if self.keep(row)]
        key = self.kind.sorts[self.order.lstrip("-")]
        ranked = sorted(enumerate(kept), key=lambda pair: _rank(pair[1].get(key), pair[0]),
                        reverse=self.order.startswith("-"))
        return [row for _, row in ranked]


def _rank(value: Cell, position: int) -> tuple[int, Any, int]:
    return (0, "", position) if value is None else (1, value, position)


def _condition(kind: ExportKind, name: str, operator: str, given: Any) -> Condition:
    where = f"parameters.filters.{name}.conditions.{operator}"
    test = _COMPARISONS.get(operator)
    if test is None:
        raise _params_error(f"Property {where}: unknown condition; allowed: {', '.join(_COMPARISONS)}")
    if operator in _INSTANT_CONDITIONS:
        try:
            given = parse_instant(given if isinstance(given, str | datetime) else str(given))
        except (TypeError, ValueError):
            raise _params_error(f"Property {where} should be an instant (ISO 8601), got {given!r}") from None
    elif operator in _LIST_CONDITIONS and not isinstance(given, list):
        given = [given]
    return Condition(kind.filter_keys.get(name, name), test, given)


def _conditions(kind: ExportKind, filters: Mapping[str, Any]) -> tuple[str, tuple[Condition, ...]]:
    junction = filters.get("junction", "and")
    if junction not in ("and", "or"):
        raise _params_error(f"Property parameters.filters.junction should be and or or, got {junction!r}")
    found: list[Condition] = []
    for name, spec in filters.items():
        if name == "junction":
            continue
        if name not in kind.fields and name not in kind.filter_keys:
            raise _params_error(f"Property parameters.filters.{name}: {kind.name} exports cannot be filtered by it")
        conditions = spec.get("conditions") if isinstance(spec, Mapping) else None
        if not isinstance(conditions, Mapping) or not conditions:
            raise _params_error(f"Property parameters.filters.{name} should be {{\"conditions\": {{...}}}}")
        found += [_condition(kind, name, operator, given) for operator, given in conditions.items()]
    return junction, tuple(found)


def plan(exported_object: str, fields: Sequence[str] | None, order: str | None,
         filters: Mapping[str, Any] | None, campaign_id: str | None = None) -> ExportPlan:
    """The export's plan, or the 400 of the first thing wrong with it (nothing is read before)."""
    kind = KINDS.get(exported_object)
    if kind is None:
        raise _params_error(f"Property .exported_object: the simulator does not export {exported_object} yet; "
                            f"it exports {', '.join(KINDS)}")
    if campaign_id is not None and exported_object != "voucher":
        raise _params_error("Property parameters.campaign_id: only a voucher export takes a campaign_id")
    chosen = tuple(fields) if fields else kind.defaults
    unknown = [name for name in chosen if name not in kind.fields]
    if unknown or len(set(chosen)) != len(chosen):
        raise BadRequest(f"Unsupported field used. Allowed fields: {', '.join(kind.fields)}",
                         key="invalid_export_fields", message="Invalid Export")
    order = order or kind.default_order
    if order.lstrip("-") not in kind.sorts or order.startswith("--"):
        values = ", ".join(f"{sign}{name}" for name in kind.sorts for sign in ("", "-"))
        raise _params_error(f"Property parameters.order should be one of {values}, got {order!r}")
    junction, conditions = _conditions(kind, filters or {})
    shown = {"junction": junction, **{k: v for k, v in (filters or {}).items() if k != "junction"}}
    return ExportPlan(kind, chosen, order, conditions, junction, shown, campaign_id)


def cell(value: Cell) -> str:
    """A value as the CSV writes it (see the module's docstring)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value)


def write_csv(fields: Sequence[str], rows: Sequence[Row]) -> str:
    """The header (`fields`) and one line per row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(fields)
    writer.writerows([cell(row.get(name)) for name in fields] for row in rows)
    return out.getvalue()
