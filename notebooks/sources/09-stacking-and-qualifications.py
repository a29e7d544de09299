# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 9. Stacking: several codes on one cart, redeemed, rolled back, budgets, why not
#
# A customer at the checkout of **Kestrel Coffee Roasters** (the demo scenario) types a
# welcome code, the shop adds its own promotion, and she pays part with a gift card. The
# service applies them **one after the other**, each on the order the ones before it left,
# under the project's **stacking rules** (docs/stacking.md): how many may apply, in which
# order, on which base a percentage is taken, what happens to one that does not apply.
#
# This notebook prices such a stack, explains what did not apply, redeems it and rolls it
# back, stacks a scoped code and free items across categories with hierarchies, watches a
# campaign's budget run out, asks the service what a customer qualifies for,
# and compares stacking policies over a batch of orders. Money is integer cents in the data;
# tables go through `readable`, which writes amounts with their currency.

# %%
from pathlib import Path

import pandas as pd
import yaml

from promolab import Simulator, models
from promolab.analysis import compare_stacking_policies, notebook_style, why_not_frame, why_not_qualified_frame
from promolab.display import format_money
from promolab.widgets import readable

notebook_style()  # figure size, and twice the pixels: crisp on a slide
pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 20)
pd.set_option("display.max_colwidth", 90)
pd.set_option("display.html.use_mathjax", False)  # "$5.00 ... $10.00" in a table is money, not maths

DATA = Path("..") / "data"  # notebooks run from notebooks/
DEMO = DATA / "scenarios" / "demo.yaml"

sim = Simulator.from_scenario(DEMO)
client = sim.client()
PROJECT = sim.state.project.id

# %% [markdown]
# ## The project's stacking rules
#
# The demo project has written none, so the service's defaults apply: up to 30 redeemables
# sent, 5 applied, 1 per category, all-or-nothing (`ALL`), in the requested order, each
# percentage taken of the order **as discounted so far**.

# %% tags=["nbval-check-output"]
rules = client.validate_stacked(redeemables=[{"object": "voucher", "id": "WELCOME-OPEN-1"}]).stacking_rules
pd.Series(rules.model_dump(mode="json")).to_frame("setting")

# %% [markdown]
# ## A stack on Alice's cart
#
# Six enamel mugs (\$72.00), her `WELCOME-ALICE` code (\$5.00 off), the shop's "\$10 off orders
# over \$50" tier, and \$10.00 from Bob's gift card (he gave it to her). Each row is the order
# as it stands **after** that redeemable: `applied` is its own part, `discount` everything so
# far.

# %% tags=["nbval-check-output"]
MUGS = {"items": [{"product_id": "prod_mug", "quantity": 6}]}
STACK = [
    {"object": "voucher", "id": "WELCOME-ALICE"},
    {"object": "promotion_tier", "id": "promo_welcome_10"},
    {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 1000}},
]
answer = client.validate_stacked(redeemables=STACK, customer={"source_id": "alice"}, order=MUGS)
running = pd.DataFrame([
    {"redeemable": r.id, "status": r.status, "applied": r.order.total_applied_discount_amount,
     "discount": r.order.total_discount_amount, "total": r.order.total_amount}
    for r in answer.redeemables
])
print("valid:", answer.valid, "| final total:", format_money(answer.order.total_amount))
readable(running, money=["applied", "discount", "total"])

# %% [markdown]
# ## Why not
#
# Put the gift card **first** and the tier, which wants more than \$50.00 *before its own
# discount*, now sees \$72.00 − \$10.00 − \$5.00 = \$57.00: still fine. Ask for \$25.00 of gift
# credits instead and it sees \$42.00: the tier no longer applies, and under the default
# all-or-nothing rule the request fails. `why_not_frame` says what stopped each redeemable
# and what it saw; that explanation never goes into the service's answer.

# %% tags=["nbval-check-output"]
first_gift = [
    {"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": 2500}},
    {"object": "voucher", "id": "WELCOME-ALICE"},
    {"object": "promotion_tier", "id": "promo_welcome_10"},
    {"object": "voucher", "id": "NO-SUCH-CODE"},
]
why = why_not_frame(sim, {"redeemables": first_gift, "customer": {"source_id": "alice"}, "order": MUGS})
readable(why[["tried", "id", "status", "applied", "key", "why"]], money=["applied"])

# %% [markdown]
# Under the `PARTIAL` rule the same request applies what it can and lists the rest.

# %% tags=["nbval-check-output"]
stored = client.create_stacking_rules(PROJECT, redeemables_application_mode="PARTIAL")
partial = client.validate_stacked(redeemables=first_gift, customer={"source_id": "alice"}, order=MUGS)
print("valid:", partial.valid, "| applied:", [r.id for r in partial.redeemables],
      "| inapplicable:", [r.id for r in partial.inapplicable_redeemables],
      "| total:", format_money(partial.order.total_amount))
client.delete_stacking_rules(PROJECT, stored.id)  # back to the defaults

# %% [markdown]
# ## Redeem, then roll back
#
# A redemption spends what the validation priced: a use of the code, the gift credits. With
# more than one redeemable it answers a **parent** redemption holding one child per
# redeemable, and stores the order. A rollback of the parent gives everything back and, by
# default, cancels the order.

# %% tags=["nbval-check-output"]
def gift_balance(code: str) -> str:
    voucher = sim.state.vouchers[sim.indexes.voucher_by_code[code]]
    return format_money(voucher.gift.balance)


print("Bob's gift card before:", gift_balance("GIFT-BOB-25"))
done = client.redeem_stacked(redeemables=STACK, customer={"source_id": "alice"},
                             order={**MUGS, "source_id": "kestrel-order-1001"})
children = pd.DataFrame([
    {"redemption": r.id, "parent": r.redemption, "of": r.related_object_id, "gift_credits": r.amount,
     "total_after": r.order.total_amount}
    for r in done.redemptions
])
print("order", done.order.id, done.order.status, "| Bob's gift card after:", gift_balance("GIFT-BOB-25"))
readable(children, money=["gift_credits", "total_after"])

# %% tags=["nbval-check-output"]
back = client.rollback_redemption(done.parent_redemption.id, reason="returned the mugs")
print("rolled back:", [r.id for r in back.rollbacks], "| gift credits back:",
      format_money(-sum(r.amount or 0 for r in back.rollbacks)))
print("order", back.order.id, back.order.status, "| Bob's gift card:", gift_balance("GIFT-BOB-25"))

# %% [markdown]
# ## Categories, a scoped code and free items
#
# The demo has three stacking categories: *Member codes* (hierarchy 0), *Shop offers*
# (hierarchy 2) and *Free gifts* (hierarchy 3); a redeemable in none is common with the
# service's default hierarchy, 1. Dave buys a gooseneck kettle and two mugs and sends, in
# this order: two free packs of filters (a UNIT tier, in *Free gifts*), the shop's 10 % off
# the kettle (in *Shop offers*), an open welcome code (in no category) and `MUG-CLUB-1`, a
# member code **scoped** to merch without the tote and valid only with a mug in the cart.
# The defaults allow one redeemable per category; each of these is in a different one.
#
# The first table is per redeemable, in the request's order: its categories and its own
# part. The second is the running order after each one, in the order they applied: the
# free filters (\$12.00) are added to the amount and taken off again.

# %% tags=["nbval-check-output"]
KETTLE_AND_MUGS = {"items": [{"product_id": "prod_kettle", "quantity": 1},
                             {"product_id": "prod_mug", "quantity": 2}]}
CATEGORISED = [
    {"object": "promotion_tier", "id": "promo_kettle_filters"},
    {"object": "promotion_tier", "id": "promo_kettle_10pct"},
    {"object": "voucher", "id": "WELCOME-OPEN-2"},
    {"object": "voucher", "id": "MUG-CLUB-1"},
]


def per_redeemable(answer: models.StackedValidationResponse) -> pd.DataFrame:
    """One row a redeemable, in the request's order: what it is in and its own part."""
    return pd.DataFrame([
        {"redeemable": r.id, "status": r.status,
         "categories": ", ".join(f"{c.name} ({c.hierarchy}{', ' + c.stacking_rules_type if c.stacking_rules_type else ''})"
                                 for c in r.categories or []) or "(none: common, 1)",
         "applied": r.order.total_applied_discount_amount}
        for r in answer.redeemables
    ])


def running_totals(answer: models.StackedValidationResponse) -> pd.DataFrame:
    """The running order after each redeemable, in the order they applied: the answer keeps the
    request's order, and a running total never rises (a free unit raises the amount instead)."""
    steps = sorted(answer.redeemables, key=lambda r: (-r.order.total_amount, r.order.amount))
    return pd.DataFrame([
        {"step": n, "redeemable": r.id, "amount": r.order.amount, "discount": r.order.total_discount_amount,
         "total": r.order.total_amount}
        for n, r in enumerate(steps, start=1)
    ])


stacked = client.validate_stacked(redeemables=CATEGORISED, customer={"source_id": "dave"}, order=KETTLE_AND_MUGS)
print("valid:", stacked.valid, "| final total:", format_money(stacked.order.total_amount))
readable(per_redeemable(stacked), money=["applied"])

# %% tags=["nbval-check-output"]
readable(running_totals(stacked), money=["amount", "discount", "total"])

# %% [markdown]
# Sort by `CATEGORY_HIERARCHY` instead of the request's order: the member code (hierarchy 0)
# goes first, the welcome code (1) next, the shop's offer (2) after it and the free filters
# (3) last. The amount discounts and the 10 % of the kettle's line do not depend on one
# another here, so the steps change and the final total does not. Put the scoped code on a
# cart with only the tote and it is INAPPLICABLE: its rule wants a mug.

# %% tags=["nbval-check-output"]
stored = client.create_stacking_rules(PROJECT, redeemables_sorting_rule="CATEGORY_HIERARCHY")
by_hierarchy = client.validate_stacked(redeemables=CATEGORISED, customer={"source_id": "dave"}, order=KETTLE_AND_MUGS)
client.delete_stacking_rules(PROJECT, stored.id)  # back to the defaults
print("valid:", by_hierarchy.valid, "| final total:", format_money(by_hierarchy.order.total_amount))
readable(running_totals(by_hierarchy), money=["amount", "discount", "total"])

# %% tags=["nbval-check-output"]
tote_only = why_not_frame(sim, {"redeemables": [{"object": "voucher", "id": "MUG-CLUB-1"}],
                                "order": {"items": [{"product_id": "prod_tote", "quantity": 1}]}})
readable(tote_only[["tried", "id", "status", "applied", "key", "why"]], money=["applied"])

# %% [markdown]
# ## A budget runs out
#
# Budgets are validation rules that count what was already redeemed. Give the welcome tier a
# budget of three redemptions a day (`campaign.redemptions.count.daily`, in the project's time
# zone) and let six customers try it, then try again the next morning.

# %% tags=["nbval-check-output"]
document = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
for campaign in document["campaigns"]:
    for tier in campaign.get("tiers") or []:
        if tier["id"] == "promo_welcome_10":
            tier["validation_rules"] = {"rules": {
                "1": {"name": "order.amount", "conditions": {"$more_than": [5000]}},
                "2": {"name": "campaign.redemptions.count.daily", "conditions": {"$less_than": [3]}},
                "logic": "1 and 2"}}
budgeted = Simulator(scenario=document)
shop = budgeted.client()
attempts = []
for day, who in [(1, "alice"), (1, "bob"), (1, "carol"), (1, "dave"), (1, "erin"), (2, "frank"), (2, "dave")]:
    if day == 2 and budgeted.now.day == 6:
        budgeted.advance(24 * 3600)  # the next morning
    try:
        redeemed = shop.redeem_stacked(redeemables=[{"object": "promotion_tier", "id": "promo_welcome_10"}],
                                       customer={"source_id": who}, order=MUGS)
        attempts.append({"day": day, "customer": who, "redeemed": True, "discount": redeemed.order.total_discount_amount,
                         "refused": ""})
    except Exception as refused:  # the client's ApiError: 400 redemption_rules_violated
        attempts.append({"day": day, "customer": who, "redeemed": False, "discount": 0, "refused": str(refused)})
readable(pd.DataFrame(attempts), money=["discount"])

# %% [markdown]
# ## What can Alice get for this cart?
#
# **Qualifications** answer the question before the checkout: which codes, gift cards and
# promotions could this customer use on this cart, each priced **alone** on the cart, best
# deal first. The service ignores a few rules here on purpose (campaign budgets, per-customer
# limits, the "total before discounts" minimum): a qualifying redeemable can still be refused
# at redemption.

# %% tags=["nbval-check-output"]
GRINDER_AND_BEANS = {"items": [{"product_id": "prod_grinder", "quantity": 1},
                               {"product_id": "prod_beans_ethiopia", "quantity": 3}]}
best = client.qualifications(customer={"source_id": "alice"}, order=GRINDER_AND_BEANS, scenario="ALL",
                             options={"sorting_rule": "BEST_DEAL", "limit": 10})
offers = pd.DataFrame([
    {"redeemable": r.id, "object": r.object,
     "takes_off": r.order.total_applied_discount_amount or 0, "total": r.order.total_amount}
    for r in best.redeemables.data
])
print(f"{best.redeemables.total} on this page; more: {best.redeemables.has_more}")
readable(offers, money=["takes_off", "total"])

# %% [markdown]
# Her wallet alone (`CUSTOMER_WALLET`), and what the `ALL` scenario left out, with why
# (`why_not_qualified_frame`, never part of the service's answer).

# %% tags=["nbval-check-output"]
wallet = client.qualifications(customer={"source_id": "alice"}, order=GRINDER_AND_BEANS, scenario="CUSTOMER_WALLET")
print("wallet:", [r.id for r in wallet.redeemables.data])
left_out = why_not_qualified_frame(sim, {"customer": {"source_id": "alice"}, "order": GRINDER_AND_BEANS,
                                         "options": {"limit": 50}})
left_out.groupby("key", observed=True).size().rename("left out").to_frame()

# %% [markdown]
# ## Which stacking policy costs what?
#
# The same five redeemables on every one of the 12,000 sample orders, priced under four
# policies: the project's all-or-nothing default, `PARTIAL`, `PARTIAL` with each discount
# taken of the order **as sent** (`INITIAL_AMOUNT`), and `PARTIAL` with at most two applied.
# `compare_stacking_policies` is vectorized across orders and equal, order for order, to the
# engine's stacked validation.

# %% tags=["nbval-check-output"]
orders = pd.read_parquet(DATA / "orders" / "sample_orders.parquet")
stack = [{"object": "promotion_tier", "id": "promo_beans_15"}, {"object": "voucher", "id": "WELCOME-OPEN-1"},
         {"object": "promotion_tier", "id": "promo_welcome_10"}, {"object": "promotion_tier", "id": "promo_vip_10pct"},
         {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 1000}}]
policies = {
    "all (default)": {},
    "partial": {"redeemables_application_mode": "PARTIAL"},
    "partial, initial amount": {"redeemables_application_mode": "PARTIAL", "discount_calculation_mode": "INITIAL_AMOUNT"},
    "partial, at most 2": {"redeemables_application_mode": "PARTIAL", "applicable_redeemables_limit": 2},
}
compared = compare_stacking_policies(sim, orders, stack, policies)
summary = compared.summary()
readable(summary[["policy", "orders", "valid_orders", "total_discount", "mean_discount"]],
         money=["total_discount", "mean_discount"], counts=["orders", "valid_orders"])

# %% tags=["nbval-check-output"]
reasons = compared.reason_counts()
reasons[reasons["policy"] == "partial"]

# %% tags=["nbval-check-output"]
difference = compared.difference("partial", "partial, initial amount")
changed = difference[difference["difference"] != 0]
print(f"{len(changed):,} of {len(difference):,} orders change; in all {format_money(int(changed['difference'].sum()))}")
readable(changed.head(5), money=["discount_a", "discount_b", "difference"])

# %%
compared.plot();
