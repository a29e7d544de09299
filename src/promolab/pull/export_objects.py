"""An export's rows as the wire objects the page path reads, so both feed the same mapping.

A customer or a code read through an export becomes the `CustomerProfile`
or `Voucher` the list's pages would have given, built from its columns and
parsed by the same model (a cell that does not fit, such as money that is
not an integer, is a `PullError` naming the row and column), then mapped by
`customers.py` and `campaigns.py` exactly as a page's object is: one
implementation of each rule, and the same scenario entries.

Each cell is typed by its column (`_INTEGERS`, `_BOOLEANS`, `_JSON`; the
rest text, an empty cell None), as the service writes its CSV: integers
for money and points, `true`/`false`, compact JSON for metadata and lists.

What the columns do not carry is decided here and said in docs/pull.md:
a code's discount carries its type, value, formula, amount limit, effect
and unit type, so a code whose discount shows its campaign's on those
columns inherits its campaign's (as it does on the pages, where it is
written only when it differs), and one that differs is built from the
columns, with a report row for what they cannot carry (`_NOT_CARRIED`); the publications of
a code are not a column, so a code counts as published once to its holder,
and the report says so once per export. A code's validation rules are read
through the rule assignments and a customer's segments per customer, on
either path.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from .. import models
from ..models import campaign_reads
from ..sim import EXPORT_VALUE_FIELD
from .errors import PullError
from .exports import ExportAsk, exported_rows
from .reader import Reader, first_misfit
from .unexpressed import Unexpressed

__all__ = ["CUSTOMER_ASK", "VOUCHER_ASK", "Exported"]

VOUCHER_ASK = ExportAsk("voucher", (
    "id", "code", "voucher_type", "campaign", "campaign_id", "category", "value", "formula", "discount_type",
    "discount_amount_limit", "discount_effect", "discount_unit_type", "discount_unit_effect", "gift_balance",
    "loyalty_balance", "start_date", "expiration_date", "validity_timeframe_interval", "validity_timeframe_duration",
    "validity_day_of_week", "active", "additional_info", "metadata", "qr_code", "bar_code", "is_referral_code",
    "created_at", "updated_at", "customer_id", "redemption_quantity", "redemption_count"))
_ADDRESS = ("city", "state", "line_1", "line_2", "country", "postal_code")
_REDEMPTION_TOTALS = ("redeemed", "failed", "succeeded", "rolled_back", "rollback_failed", "rollback_succeeded")
_ORDER_FIGURES = ("total_amount", "total_count", "average_amount", "last_order_amount")
CUSTOMER_ASK = ExportAsk("customer", (
    "id", "source_id", "name", "email", "description", "phone", "birthday", "birthdate", "metadata",
    *(f"address_{part}" for part in _ADDRESS), *(f"redemptions_total_{t}" for t in _REDEMPTION_TOTALS),
    *(f"orders_{figure}" for figure in _ORDER_FIGURES), "orders_last_order_date", "loyalty_points",
    "loyalty_referred_customers", "created_at", "updated_at"))

_INTEGERS = frozenset({"discount_amount_limit", "gift_balance", "loyalty_balance", "redemption_quantity",
                       "redemption_count", "loyalty_points", "loyalty_referred_customers",
                       *(f"redemptions_total_{t}" for t in _REDEMPTION_TOTALS),
                       *(f"orders_{figure}" for figure in _ORDER_FIGURES)})
_BOOLEANS = frozenset({"active", "is_referral_code"})
_JSON = frozenset({"metadata", "validity_day_of_week"})
_FORMULA_OF = {"AMOUNT": "amount_off_formula", "PERCENT": "percent_off_formula"}
#: What a code's own discount may hold that no column carries, by its type (a FIXED one: nothing).
_NOT_CARRIED = {"AMOUNT": "an aggregated amount limit", "PERCENT": "an aggregated amount limit",
                "UNIT": "a unit discount's product or SKU, nor an ADD_MANY_ITEMS discount's units"}

Cells = dict[str, Any]


class _BadCell(ValueError):
    """A cell that is not what its column holds."""


def _integer(text: str) -> int:
    if not text.lstrip("-").isdigit():
        raise _BadCell(f"{text[:40]!r} is not an integer")
    return int(text)


def _number(text: str) -> int | float:
    """The `value` column: an integer, or a percent's fraction."""
    try:
        return _integer(text)
    except _BadCell:
        try:
            value = float(text)
        except ValueError:
            raise _BadCell(f"{text[:40]!r} is not a number") from None
        if not math.isfinite(value):
            raise _BadCell(f"{text[:40]!r} is not a number")
        return value


def _typed(column: str, text: str) -> Any:
    if text == "":
        return None
    if column in _INTEGERS:
        return _integer(text)
    if column in _BOOLEANS:
        if text not in ("true", "false"):
            raise _BadCell(f"{text[:40]!r} is not true or false")
        return text == "true"
    if column in _JSON:
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise _BadCell(f"{text[:40]!r} is not JSON") from None
    if column == "value":
        return _number(text)
    return text


def _cells(rows: list[dict[str, str]], ask: ExportAsk) -> list[Cells]:
    typed: list[Cells] = []
    for number, row in enumerate(rows, start=1):
        cells: Cells = {}
        for column, text in row.items():
            try:
                cells[column] = _typed(column, text)
            except _BadCell as exc:
                raise PullError(f"export of {ask.exported_object}s: row {number:,}, column {column}: {exc}") from None
        typed.append(cells)
    return typed


def _parsed(model: type[BaseModel], wire: Mapping[str, Any], ask: ExportAsk, number: int) -> Any:
    try:
        return model.model_validate(wire)
    except ValidationError as exc:
        raise PullError(f"export of {ask.exported_object}s: row {number:,} ({wire.get('id')}): "
                        f"{first_misfit(exc, 'the row')}") from None


def _discount_of(row: Cells) -> dict[str, Any] | None:
    """The discount the row's columns say (None: the row has no discount type)."""
    kind = row["discount_type"]
    if kind is None:
        return None
    unit = kind == "UNIT"
    discount: dict[str, Any] = {"type": kind, EXPORT_VALUE_FIELD.get(kind, "value"): row["value"],
                                "effect": row["discount_unit_effect" if unit else "discount_effect"],
                                "amount_limit": row["discount_amount_limit"], "unit_type": row["discount_unit_type"]}
    if kind in _FORMULA_OF:
        discount[_FORMULA_OF[kind]] = row["formula"]
    return {key: value for key, value in discount.items() if value is not None}


def _columns_of(discount: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A discount as the export's columns show it: what a row's discount is compared on."""
    if not discount:
        return None
    kind = discount.get("type")
    unit = kind == "UNIT"
    row: Cells = {"discount_type": kind, "value": discount.get(EXPORT_VALUE_FIELD.get(str(kind), "")),
                  "formula": discount.get(_FORMULA_OF.get(str(kind), "")),
                  "discount_amount_limit": discount.get("amount_limit"),
                  "discount_effect": None if unit else discount.get("effect"),
                  "discount_unit_effect": discount.get("effect") if unit else None,
                  "discount_unit_type": discount.get("unit_type")}
    return _discount_of(row)


@dataclass(slots=True)
class Exported:
    """The long lists of one pull read through exports, and the report rows their columns leave."""

    reader: Reader
    #: Each campaign's template discount (as the campaign read shows it): what a code inherits.
    templates: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    unexpressed: list[Unexpressed] = field(default_factory=list)

    def know_campaigns(self, campaigns: Sequence[models.Campaign]) -> None:
        self.templates = {c.id: None if c.voucher is None or c.voucher.discount is None
                          else c.voucher.discount.model_dump(mode="json", exclude_none=True) for c in campaigns}

    def customers(self, total: int) -> list[models.CustomerProfile]:
        rows = _cells(exported_rows(self.reader, CUSTOMER_ASK, total), CUSTOMER_ASK)
        return [_parsed(models.CustomerProfile, _customer_wire(row), CUSTOMER_ASK, n) for n, row in enumerate(rows, 1)]

    def vouchers(self, total: int) -> list[models.Voucher]:
        rows = _cells(exported_rows(self.reader, VOUCHER_ASK, total), VOUCHER_ASK)
        codes = [_parsed(models.Voucher, self._voucher_wire(row), VOUCHER_ASK, n) for n, row in enumerate(rows, 1)]
        if codes:
            self.unexpressed.append(Unexpressed(
                "voucher", "", "publish.count", f"{len(codes):,} codes were read through an export, which has no "
                "column for publications: each counts as published once, to its holder"))
        return codes

    def _voucher_wire(self, row: Cells) -> dict[str, Any]:
        template = self.templates.get(row["campaign_id"] or "")
        discount = _discount_of(row)
        if discount is not None and discount == _columns_of(template):
            discount = template  # its campaign's, on every column the export has: inherited whole
        elif discount is not None and discount["type"] in _NOT_CARRIED:
            self.unexpressed.append(Unexpressed(
                "voucher", str(row["id"]), "discount", f"read through an export, which has no column for "
                f"{_NOT_CARRIED[discount['type']]}: its own discount is what the discount columns hold"))
        kind, holder, code = row["voucher_type"], row["customer_id"], row["code"] or ""
        listed = campaign_reads.GET_VOUCHER.url_path(code=code)  # its lists' urls: not read, but a voucher has them
        return {
            "id": row["id"], "code": code, "campaign": row["campaign"], "campaign_id": row["campaign_id"],
            "category": row["category"], "type": kind, "discount": discount,
            "gift": {"amount": row["value"], "balance": row["gift_balance"]} if kind == "GIFT_VOUCHER" else None,
            "loyalty_card": ({"points": row["value"], "balance": row["loyalty_balance"]}
                             if kind == "LOYALTY_CARD" else None),
            "start_date": row["start_date"], "expiration_date": row["expiration_date"],
            "validity_timeframe": ({"interval": row["validity_timeframe_interval"],
                                    "duration": row["validity_timeframe_duration"]}
                                   if row["validity_timeframe_interval"] is not None else None),
            "validity_day_of_week": row["validity_day_of_week"], "active": row["active"],
            "additional_info": row["additional_info"], "metadata": row["metadata"] or {},
            "assets": {"qr": {"id": "", "url": row["qr_code"] or ""},
                       "barcode": {"id": "", "url": row["bar_code"] or ""}},
            "is_referral_code": row["is_referral_code"], "created_at": row["created_at"],
            "updated_at": row["updated_at"], "holder_id": holder,
            "redemption": {"quantity": row["redemption_quantity"], "redeemed_quantity": row["redemption_count"],
                           "url": f"{listed}/redemptions?page=1&limit=10"},
            "publish": {"count": 1 if holder else 0, "url": f"{listed}/publications?page=1&limit=10"},
        }


def _customer_wire(row: Cells) -> dict[str, Any]:
    address = {part: row[f"address_{part}"] for part in _ADDRESS}
    orders = {figure: row[f"orders_{figure}"] or 0 for figure in _ORDER_FIGURES}
    wire: dict[str, Any] = {
        "id": row["id"], "source_id": row["source_id"], "name": row["name"], "email": row["email"],
        "address": address if any(value is not None for value in address.values()) else None,
        "summary": {"redemptions": {**{f"total_{t}": row[f"redemptions_total_{t}"] or 0 for t in _REDEMPTION_TOTALS},
                                    "gift": {}, "loyalty_card": {}},
                    "orders": {**orders, "last_order_date": row["orders_last_order_date"]}},
        "loyalty": {"points": row["loyalty_points"] or 0, "referred_customers": row["loyalty_referred_customers"] or 0},
        "referrals": {"total": 0}, "metadata": row["metadata"] or {},
        "created_at": row["created_at"], "updated_at": row["updated_at"],
    }
    for extra in ("description", "phone", "birthday", "birthdate"):  # what a scenario's customer has no place for
        if row[extra] is not None:
            wire[extra] = row[extra]
    return wire
