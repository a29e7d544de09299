"""A scenario of scoped codes, code campaigns with rules, gift cards with
amount rules and `order.total_amount` rules (tests/sim/test_scoped_codes.py,
tests/analysis/test_scoped_code_policies.py)."""

from __future__ import annotations

from typing import Any

ORDER_RULE_MORE_THAN_5000 = {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [5000]}}}}
TOTAL_AT_LEAST_2500 = {"rules": {"1": {"name": "order.total_amount", "conditions": {"$more_than_or_equal": [2500]}}}}
MUG_HALF = {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}
ONLY_MUG = {"included": [{"object": "product", "id": "prod_mug"}]}

SCENARIO: dict[str, Any] = {
    "version": 1,
    "seed": 3,
    "clock": {"start": "2026-03-06T10:00:00Z"},
    "catalogue": {
        "products": [
            {"id": "prod_mug", "source_id": "mug", "name": "Mug", "price": 1200},
            {"id": "prod_tote", "source_id": "tote", "name": "Tote", "price": 2500},
            {"id": "prod_beans", "source_id": "beans", "name": "Beans", "price": 1800, "skus": [
                {"id": "sku_beans_250", "source_id": "beans-250", "sku": "250 g", "price": 1800},
                {"id": "sku_beans_1000", "source_id": "beans-1kg", "sku": "1 kg", "price": 6200},
            ]},
        ],
        "collections": [{"id": "pc_merch", "name": "Merch", "products": ["prod_mug", "prod_tote"]}],
    },
    "customers": [
        {"id": "cust_gold", "source_id": "gold", "metadata": {"tier": "gold"}},
        {"id": "cust_plain", "source_id": "plain", "metadata": {"tier": "bronze"}},
    ],
    "campaigns": [
        {"id": "camp_coupons", "name": "Coupons", "type": "DISCOUNT_COUPONS",
         "discount": MUG_HALF, "applicable_to": ONLY_MUG,
         "vouchers": [
             {"code": "MUG50"},
             {"code": "SKU500", "discount": {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ITEMS"},
              "applicable_to": {"included": [{"object": "sku", "id": "sku_beans_1000"}]}},
             {"code": "MERCH10", "discount": {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ITEMS"},
              "applicable_to": {"included": [{"object": "products_collection", "id": "pc_merch"}],
                                "excluded": [{"object": "product", "id": "prod_tote"}]}},
             {"code": "BIG", "discount": {"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ORDER"},
              "applicable_to": {}, "validation_rules": ORDER_RULE_MORE_THAN_5000},
             {"code": "GOLD", "discount": {"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ORDER"},
              "applicable_to": {}, "validation_rules": {"rules": {"1": {
                  "name": "customer.metadata", "property": "tier", "conditions": {"$is": ["gold"]}}}}},
             {"code": "TOTAL", "discount": {"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ORDER"},
              "applicable_to": {}, "validation_rules": TOTAL_AT_LEAST_2500},
             {"code": "EXAMPLE-G", "discount": {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ORDER"},
              "applicable_to": {}, "validation_rules": {"rules": {
                  "1": {"name": "order.amount", "conditions": {"$more_than": [1000]}},
                  "2": {"name": "order.initial_amount", "conditions": {"$less_than": [1100]}}, "logic": "1 and 2"}}},
         ]},
        {"id": "camp_pool", "name": "Merch pool", "type": "DISCOUNT_COUPONS",
         "discount": {"type": "PERCENT", "percent_off": 20, "effect": "APPLY_TO_ITEMS"},
         "applicable_to": {"included": [{"object": "products_collection", "id": "pc_merch"}]},
         "validation_rules": {"rules": {"1": {"name": "product.id", "conditions": {"$in": ["prod_mug"]}}}},
         "code_pool": {"count": 3, "prefix": "POOL-"}},
        {"id": "camp_gift", "name": "Gift cards", "type": "GIFT_VOUCHERS", "gift_amount": 5000,
         "validation_rules": {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than_or_equal": [3000]}}}},
         "vouchers": [{"code": "GIFT1"}, {"code": "GIFT-FREE", "validation_rules": {}},
                      {"code": "GIFT-TOTAL", "validation_rules": {"rules": {"1": {
                          "name": "order.total_amount", "conditions": {"$more_than_or_equal": [1000]}}}}}]},
        {"id": "camp_promo", "name": "Promotions", "type": "PROMOTION", "tiers": [
            {"id": "promo_mug_half", "name": "Half a mug", "discount": MUG_HALF, "applicable_to": ONLY_MUG},
            {"id": "promo_total", "name": "Total rule", "discount": {"type": "AMOUNT", "amount_off": 1000},
             "validation_rules": TOTAL_AT_LEAST_2500},
        ]},
    ],
}
