# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 10. Campaign forecast: a month of orders against budgets and limits
#
# Marketing wants to know, before March starts, what the promotions of **Kestrel Coffee
# Roasters** will give away over the month, **when** each budget runs out, **who** gets the
# discounts, what they cost in margin, and what a proposed change would do.
#
# A sweep (notebook 3) prices every order as if it were alone. A **forecast** walks the
# orders in the order they are placed: each one redeems the best tier it qualifies for at its
# own instant, and every redemption eats into the budgets and limits, so a tier that ran out
# on the 27th gives nothing on the 28th. Money is integer cents in the frames; tables a person
# reads go through `readable` and `format_money`.

# %%
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import yaml

from promolab import Simulator, samples
from promolab.analysis import (
    CostModel,
    breakdown,
    compare_scenarios,
    forecast,
    notebook_style,
    plot_discount_by_cohort,
    plot_weekday_hour_heatmap,
    send_one_by_one,
)
from promolab.display import format_count, format_money
from promolab.widgets import readable

notebook_style()  # figure size, and twice the pixels: crisp on a slide
pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 20)
pd.set_option("display.max_colwidth", 90)
pd.set_option("display.html.use_mathjax", False)  # "$5.00 ... $10.00" in a table is money, not maths

# %% [markdown]
# ## A month of orders
#
# 200,000 orders placed in March 2026 at the shop (Berlin time), one row per line item: what
# was bought, by whom, when, through which channel, and the customer's segment. The forecast
# needs `placed_at`; `channel` and `segment` ride along into the results, for the breakdowns
# further down.

# %% tags=["nbval-check-output"]
orders = pd.read_parquet(samples.month_orders())
per_order = orders.drop_duplicates("order_id")
print(f"{format_count(len(per_order))} orders, {format_count(len(orders))} lines, "
      f"from {per_order['placed_at'].min()} to {per_order['placed_at'].max()}")
orders.head(4)

# %% tags=["nbval-check-output"]
per_order.groupby("channel", observed=True).size().rename("orders").to_frame().T

# %% [markdown]
# ## The scenario: three budgets and limits
#
# `samples.forecast_scenario()` is the demo shop with one rule of each kind added to a tier.
# A budget is a validation rule that counts what was already redeemed:
#
# - `promo_vip_10pct` may apply while the **VIP campaign** has given away less than \$5,000.00
#   in all (`campaign.orders.amount_discounted`);
# - `promo_welcome_10` at most **once per customer per day** (`redemption.count.per_customer.daily`);
# - `promo_beans_15` while the **beans campaign** has had fewer than 300 redemptions this
#   week (`campaign.redemptions.count.weekly`, weeks from Monday).
#
# Days and weeks are the project's calendar, in Europe/Berlin.

# %% tags=["nbval-check-output"]
sim = Simulator.from_scenario(samples.forecast_scenario())
print("time zone:", sim.state.project.timezone, "| clock:", sim.now.isoformat())
BUDGET_RULES = ("campaign.orders.amount_discounted", "redemption.count.per_customer.daily",
                "campaign.redemptions.count.weekly")
scenario_doc = yaml.safe_load(samples.forecast_scenario().read_text(encoding="utf-8"))
rows = []
for campaign in scenario_doc["campaigns"]:
    for tier in campaign.get("tiers") or []:
        for rule_id, rule in (tier.get("validation_rules") or {}).get("rules", {}).items():
            if rule_id != "logic" and rule["name"] in BUDGET_RULES:
                (operator, (bound,)), = rule["conditions"].items()
                rows.append({"tier_id": tier["id"], "campaign_id": campaign["id"], "rule": rule["name"],
                             "condition": operator,
                             "bound": format_money(bound) if "amount" in rule["name"] else format_count(bound)})
pd.DataFrame(rows)

# %% [markdown]
# ## The forecast
#
# Not every customer who could use a promotion does: the cost model says 80% of the orders
# that qualify redeem. Which orders those are is decided by a hash of the order id and the
# `seed`, so the same orders redeem on every run, and in every scenario compared below.
#
# `summary()` gives, per campaign, the redemptions and the discount given away over the month.

# %% tags=["nbval-check-output"]
costs = CostModel(redemption_rate=0.8, seed=1)
result = forecast(sim, orders, costs=costs, progress=False)
o = result.orders
print(f"{format_count(len(o))} orders: {format_count(o['qualified_tier_id'].notna().sum())} qualified for a tier, "
      f"{format_count(o['redeemed'].sum())} redeemed, {format_money(o['discount'].sum())} given away")
summary = result.summary()
readable(summary[["campaign_id", "redemptions", "discount"]], money=["discount"], counts=["redemptions"])

# %% [markdown]
# `budgets` has a row per budget or limit rule: its bound (`limit`: cents for an amount,
# a count otherwise), what was used by the end of the month (for a budget that has no period
# and is not per customer), **when it first refused** an order that would otherwise have
# redeemed that tier (`ran_out_at`), and how many orders it refused in all. A refused order
# still redeems the next best tier it qualifies for, if any. Each held-back order is counted
# here against the budget that held it back.

# %% tags=["nbval-check-output"]
budgets = result.budgets
shown = budgets[["tier_id", "rule", "period", "per_customer", "ran_out_at", "orders_held_back"]].copy()
is_money = budgets["rule"].str.contains("amount").to_numpy()
shown.insert(4, "limit", [format_money(v) if m else format_count(v) for v, m in zip(budgets["limit"], is_money)])
shown.insert(5, "used", [format_money(v) if m else format_count(v) for v, m in zip(budgets["used"], is_money)])
readable(shown, counts=["orders_held_back"])

# %% [markdown]
# Three things to read in it:
#
# - The **beans cap** binds before 11:00 on the very first day and again every week: the
#   campaign has four more tiers without a cap (per bag, gear, merch, mugs), and their
#   redemptions count towards the 300 too.
# - The **VIP budget** is \$5,000.00 of discount for the whole VIP campaign, whose other two
#   tiers (VIP mugs, the brewing bundle) have no budget of their own and keep redeeming: the
#   campaign ends the month above the line, and the 10% tier is refused from then on (only a
#   handful of known customers are VIP, so it holds back one order).
# - The **welcome limit** never binds: a per-customer limit counts customers the service
#   stores, and almost all of March's shoppers are guests it does not know (`shopper-...`), whose
#   redemptions are recorded without a customer.
#
# Free-item (UNIT) tiers are candidates like the others: the redemption operation applies them,
# alone or in a stack, and nothing is left out (`result.excluded` is empty). The weekend's free
# filters and starter kit win the weekend orders they give the most to:

# %% tags=["nbval-check-output"]
free = o[o["redeemed"] & o["tier_id"].isin(["promo_weekend_filters", "promo_weekend_starter"])]
print(f"left out: {dict(result.excluded)}")
free.groupby("tier_id", observed=True).size().rename("redemptions").to_frame()

# %% [markdown]
# ## Exact, not an estimate
#
# The forecast gives what sending each order, in time order, through the service's validation
# and redemption would give: the clock moved to the order's instant, the best tier redeemed, the
# budgets spent. The test suite checks it order for order on 10,000 dated orders. Here, the same
# check on the first 1,500 orders of the month (the beans cap binds at the 1,201st): a fresh
# simulator, each order sent one by one with `send_one_by_one`, with the same cost model.

# %% tags=["nbval-check-output"]
fresh = Simulator.from_scenario(samples.forecast_scenario())
first_ids = o["order_id"].iloc[:1500]
first_orders = orders[orders["order_id"].isin(first_ids)]
sent = send_one_by_one(fresh.client(), first_orders, result.tier_ids, costs=costs, clock=fresh)
head = o.iloc[:1500]
same_orders = sent["order_id"].tolist() == head["order_id"].tolist()
same_tiers = sent["tier_id"].fillna("").tolist() == head["tier_id"].astype(object).fillna("").tolist()
same_discounts = sent["discount"].tolist() == head["discount"].tolist()
print(f"{format_count(sent['redeemed'].sum())} redemptions sent one by one, "
      f"{format_money(sent['discount'].sum())} given away")
print("same orders:", same_orders, "| same tiers:", same_tiers, "| same discounts:", same_discounts)

# %% [markdown]
# ## When does the VIP budget run out?
#
# `periods("day")` has a row per campaign and day: redemptions and discount that day and the
# running totals. `result.plot_burn_down("camp_vip")` draws the VIP campaign's running total of
# discount against its budget, read from the scenario's rule (\$5,000.00, the dashed line), and
# marks the day the line reaches it, with why it goes on past it: the budget refuses the 10%
# tier, while the campaign's other tiers have no budget of their own and keep redeeming.

# %% tags=["nbval-check-output"]
daily = result.periods("day")
vip_daily = daily[daily["campaign_id"] == "camp_vip"]
crossing = vip_daily[vip_daily["discount_to_date"] >= 500_000].iloc[0]
vip_budget = budgets.set_index("tier_id").loc["promo_vip_10pct"]
print("VIP campaign passes", format_money(500_000), "on", crossing["period_start"].date(),
      "| first VIP 10% order refused:", vip_budget["ran_out_at"])
readable(vip_daily[["period_start", "redemptions", "discount", "discount_to_date"]].tail(7),
         money=["discount", "discount_to_date"])

# %%
fig, ax = plt.subplots(figsize=(9, 4.4))
result.plot_burn_down("camp_vip", ax=ax)  # the budget is the scenario's rule; the crossing is explained
fig.autofmt_xdate()
plt.show()

# %% [markdown]
# ## The weekly beans cap
#
# `periods("week")` counts per calendar week (from Monday; the first week of the data is the
# one of Monday 23 February, of which only Sunday 1 March has orders). Every week the beans
# campaign redeems far more than 300 times, through its uncapped tiers; the 15% tier only
# gets the share of the first 300, and from then on the cap refuses it until Monday.

# %% tags=["nbval-check-output"]
weekly = result.periods("week")
beans_weeks = weekly.loc[weekly["campaign_id"] == "camp_beans", ["period_start", "redemptions", "discount"]]
week_start = o["placed_at"].dt.tz_localize(None).dt.normalize() - pd.to_timedelta(o["placed_at"].dt.day_of_week, unit="D")
held = o["held_back_tier_id"] == "promo_beans_15"
per_week = pd.DataFrame({
    "promo_beans_15": o["tier_id"].eq("promo_beans_15").fillna(False).groupby(week_start).sum(),
    "cap_reached_at": o.loc[held, "placed_at"].groupby(week_start[held]).min(),
    "held_back": held.groupby(week_start).sum(),
})
beans_weeks = beans_weeks.assign(**{c: per_week[c].to_numpy() for c in per_week})
readable(beans_weeks, money=["discount"], counts=["redemptions", "promo_beans_15", "held_back"])

# %% [markdown]
# `budget_left("week")` says what each budget of everyone's total read at the end of each
# week and what was left under its bound. The VIP budget counts ever, so its total only grows;
# the beans cap counts the campaign's redemptions of the current week (all its tiers), so it
# starts again from 0 every Monday and ends each week far past 300: `used_by_tier` is what the
# beans tier itself redeemed, `used_by_other_tiers` what the campaign's tiers without that cap
# added (the cap stops only its own tier), `used_before` what the simulator had spent before.
# (`measure` says what the numbers are: redemptions, or cents of discount.)

# %% tags=["nbval-check-output"]
left = result.budget_left("week")
figures = ["limit", "used", "used_by_tier", "used_by_other_tiers", "used_before", "left"]
shown = left[["rule", "period", "period_start", *figures]].astype(object)
shown["period"] = left["period"].fillna("ever")
in_money = (left["measure"] != "count").to_numpy()
for column in figures:
    shown[column] = [format_money(int(v)) if m else format_count(int(v)) for v, m in zip(left[column], in_money)]
shown

# %% [markdown]
# ## Who gets the discounts?
#
# `result.orders` is a per-order frame (order, time, customer, channel, segment, amount,
# redeemed, discount, campaign), which the cohort functions break down. `breakdown` gives a
# row per cohort: orders, how many redeemed, the share, the discount and the discount per
# order. A customer is **new** on their first order of the month.

# %% tags=["nbval-check-output"]
COLUMNS = ["orders", "redeemed", "redemption_share", "discount", "discount_per_order"]


def cohort_table(by: str) -> pd.DataFrame:
    table = breakdown(o, by)
    return readable(table[[by, *COLUMNS]], counts=["orders", "redeemed"], shares=["redemption_share"],
                    money=["discount", "discount_per_order"])


cohort_table("channel")

# %% tags=["nbval-check-output"]
cohort_table("segment")  # NaN: orders without a segment

# %% tags=["nbval-check-output"]
cohort_table("new_customer")

# %% [markdown]
# By basket size: small baskets rarely reach a tier's minimum, and baskets over \$50.00 get
# most of the money.

# %% tags=["nbval-check-output"]
cohort_table("basket_band")

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
plot_discount_by_cohort(breakdown(o, "basket_band"), "basket_band", ax=left)
plot_discount_by_cohort(breakdown(o, "channel"), "channel", value="discount_per_order", ax=right)
fig.tight_layout()
plt.show()

# %% [markdown]
# When in the week: the discount per weekday and local hour (Berlin wall clock, also across
# the change to summer time on 29 March).

# %%
fig, ax = plt.subplots(figsize=(10, 3.6))
plot_weekday_hour_heatmap(o, "discount", ax=ax)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Discount and margin
#
# A discount is also margin given away. Add a cost of goods to the cost model, here 55% of
# each line's price (a dict of cents per unit per product or SKU id works too): the orders get
# `cost_of_goods` and `margin` (amount − cost of goods − discount). The redemption draws are
# the same, so the redemptions are the same orders as above.

# %% tags=["nbval-check-output"]
costed_model = CostModel(cost_of_goods=0.55, redemption_rate=0.8, seed=1)
costed = forecast(sim, orders, costs=costed_model, progress=False)
c = costed.orders
print("same redemptions as above:", c["tier_id"].equals(o["tier_id"]))
by_campaign = (c[c["redeemed"]].groupby("campaign_id", observed=True)[["amount", "cost_of_goods", "discount", "margin"]]
               .sum().astype("int64").sort_values("discount", ascending=False).reset_index())
by_campaign["discount_share_of_margin"] = by_campaign["discount"] / (by_campaign["amount"] - by_campaign["cost_of_goods"])
readable(by_campaign, money=["amount", "cost_of_goods", "discount", "margin"], shares=["discount_share_of_margin"])

# %% [markdown]
# `discount_share_of_margin` is the part of the gross margin of the redeeming orders that the
# promotion gave away.
#
# Redemption rates can also differ per cohort: `cohort_rates` multiplies the rate per value of
# an order column. If only half as many store customers remember to ask for a promotion:

# %% tags=["nbval-check-output"]
in_store = forecast(sim, orders, costs=CostModel(redemption_rate=0.8, seed=1, cohort_rates={"channel": {"store": 0.5}}),
                    progress=False)
by_channel = pd.DataFrame({"now": breakdown(o, "channel").set_index("channel")["discount"],
                           "store at half rate": breakdown(in_store.orders, "channel").set_index("channel")["discount"]})
readable(by_channel.reset_index(), money=["now", "store at half rate"])

# %% [markdown]
# ## A proposal: a weekly beans cap of 600
#
# The beans team proposes to double the weekly cap. Load the scenario's YAML, change the bound
# of the rule, and build a second simulator from the edited document. `compare_scenarios`
# forecasts the same orders under both with the same cost model (the same orders redeem, so
# every difference is the proposal's).

# %% tags=["nbval-check-output"]
proposal_doc = yaml.safe_load(samples.forecast_scenario().read_text(encoding="utf-8"))
for campaign in proposal_doc["campaigns"]:
    for tier in campaign.get("tiers") or []:
        if tier["id"] == "promo_beans_15":
            rules = tier["validation_rules"]["rules"]
            cap = next(r for k, r in rules.items() if k != "logic" and r["name"] == "campaign.redemptions.count.weekly")
            cap["conditions"] = {"$less_than": [600]}
proposal = Simulator.from_scenario(proposal_doc)
cmp = compare_scenarios({"now": sim, "proposal": proposal}, orders, costs=costed_model)
wide = cmp.campaigns()[["redemptions", "discount"]]
wide.columns = [f"{measure} ({scenario})" for measure, scenario in wide.columns]
readable(wide.reset_index(), counts=["redemptions (now)", "redemptions (proposal)"],
         money=["discount (now)", "discount (proposal)"])

# %% tags=["nbval-check-output"]
readable(cmp.totals(), counts=["orders", "redeemed", "held_back"], money=["discount", "margin"])

# %% [markdown]
# What the proposal changes, per campaign (proposal − now): the beans campaign gains, and some
# orders that got the welcome \$10.00 now take 15% off their beans instead.

# %% tags=["nbval-check-output"]
change = cmp.difference("now", "proposal")[["campaign_id", "redemptions", "discount"]]
totals = cmp.totals().set_index("scenario")
print("discount:", format_money(totals.loc["proposal", "discount"] - totals.loc["now", "discount"], signed=True),
      "| margin:", format_money(totals.loc["proposal", "margin"] - totals.loc["now", "margin"], signed=True))
change["redemptions"] = [format_count(v, signed=True) for v in change["redemptions"]]
change["discount"] = [format_money(v, signed=True) for v in change["discount"]]
change

# %% [markdown]
# The chart writes each change next to the proposal's bar (a few percent of a bar is hard to see),
# and `plot(difference=True)` draws the changes themselves:

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.2))
cmp.plot(ax=left)
cmp.plot(ax=right, difference=True)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Codes handed out: how long does the newsletter pool last?
#
# Besides its promotions, the shop hands newsletter readers a 10% code: the campaign
# `camp_newsletter` has a pool of 25 codes and `join_once` (a customer always gets the same
# code back). A fixed policy naming the campaign publishes a code to each order's customer
# first, by the simulator's own publication rules, then redeems it with the order: the forecast
# says when the pool runs dry and how many orders found it empty (`code pool` in its budgets).
# A pool of 2,000 codes lasts longer, and the customers who got one keep using it:

# %% tags=["nbval-check-output"]
bigger_doc = yaml.safe_load(samples.forecast_scenario().read_text(encoding="utf-8"))
next(c for c in bigger_doc["campaigns"] if c["id"] == "camp_newsletter")["code_pool"]["count"] = 2_000
pools = {}
for name, scenario in {"25 codes": sim, "2,000 codes": Simulator.from_scenario(bigger_doc)}.items():
    coded = forecast(scenario, orders, policy=["camp_newsletter"], progress=False)
    pool = coded.budgets.set_index("rule").loc["code pool (codes left to publish)"]
    used = coded.orders[coded.orders["redeemed"]]
    pools[name] = {"codes published": int(pool["used"]), "customers using one": used["customer"].nunique(),
                   "orders redeemed": len(used), "discount": int(used["discount"].sum()),
                   "pool empty at": pool["ran_out_at"], "orders finding it empty": int(pool["orders_held_back"])}
readable(pd.DataFrame(pools).T.reset_index(names="pool"),
         counts=["codes published", "customers using one", "orders redeemed", "orders finding it empty"],
         money=["discount"])

# %% [markdown]
# ## Export
#
# The frames are plain pandas: write them to CSV or Parquet for a spreadsheet or the data
# warehouse (in cents, as they are), and charts to PNG. Here into a temporary directory,
# read back to show what was written.

# %% tags=["nbval-check-output"]
with tempfile.TemporaryDirectory() as folder:
    out = Path(folder)
    summary.to_csv(out / "campaigns.csv", index=False)
    budgets.to_csv(out / "budgets.csv", index=False)
    daily.to_parquet(out / "daily.parquet", index=False)
    c.to_parquet(out / "orders.parquet", index=False)
    fig, ax = plt.subplots(figsize=(9, 4.4))
    result.plot_burn_down("camp_vip", ax=ax)
    fig.savefig(out / "vip-burn-down.png", dpi=200, metadata={"Software": None})  # 200 dpi: for a slide
    plt.close(fig)
    for path in sorted(out.iterdir()):
        if path.suffix == ".png":
            height, width = plt.imread(path).shape[:2]
            print(f"{path.name:18} {width} x {height} px")
        else:
            back = pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)
            print(f"{path.name:18} {format_count(len(back))} rows x {back.shape[1]} columns")
    print("all orders back from Parquet:", np.array_equal(pd.read_parquet(out / "orders.parquet")["discount"], c["discount"]))
