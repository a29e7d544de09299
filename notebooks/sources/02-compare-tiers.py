# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 2. Comparing tiers side by side
#
# The marketing team at Kestrel runs fifteen promotion tiers across seven campaigns. For a
# handful of real baskets they want to see, side by side: which tiers apply, what each would
# take off, which one wins for each order, and why the others do not apply. Then: does the
# answer change for a VIP customer, or on a Saturday?
#
# `compare_tiers` prices **every order x every tier** with the service's pricing engine and
# returns a tidy DataFrame; `best_tier`, `pivot_tiers` and `discount_matrix` reshape it. The
# frames hold money in integer cents; the tables below show it with the currency (`readable`).

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from promolab import Simulator
from promolab.analysis import (
    best_tier,
    compare_tiers,
    discount_matrix,
    notebook_style,
    order_request,
    pivot_tiers,
    plot_discount_by_tier,
)
from promolab.widgets import readable

notebook_style()  # figure size, and twice the pixels: crisp on a slide
pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
pd.set_option("display.html.use_mathjax", False)  # "$10 ... $50" in a table is money, not maths

DATA = Path("..") / "data"  # notebooks run from notebooks/
sim = Simulator.from_scenario(DATA / "scenarios" / "demo.yaml")

# %% [markdown]
# ## Twelve baskets from the sample orders
#
# `data/orders/sample_orders.parquet` holds 12,000 generated orders as line items (one row per
# line). We take the first twelve orders. Their lines carry no `price` (`-`): the catalogue's
# prices apply.

# %% tags=["nbval-check-output"]
orders = pd.read_parquet(DATA / "orders" / "sample_orders.parquet")
first_ids = pd.unique(orders["order_id"])[:12]
baskets = orders[orders["order_id"].isin(first_ids)].reset_index(drop=True)
print(f"{len(baskets)} lines in {baskets['order_id'].nunique()} orders")
readable(baskets.head(8), money=["price"])

# %% tags=["nbval-check-output"]
frame = compare_tiers(sim, baskets)
print(frame.shape, "= orders x tiers, columns:", ", ".join(frame.columns))
readable(frame[["order_id", "customer_source_id", "tier_id", "valid", "discount_amount", "total_amount", "reason_key"]].head(6),
         money=["discount_amount", "total_amount"])

# %% [markdown]
# ## The discount matrix: orders x tiers
#
# The discount of every tier on every order; \$0.00 where a tier does not apply. The columns are
# in the service's response order (campaign creation order, then hierarchy); tiers that give
# nothing to any of these orders are left out.

# %% tags=["nbval-check-output"]
matrix = discount_matrix(frame)  # cents
applicable = matrix.columns[(matrix > 0).any()]
readable(matrix[applicable], money=applicable)

# %% [markdown]
# ## The best tier for each order
#
# Tiers do not stack within a campaign; the customer gets one. `best_tier` picks the valid tier
# with the largest discount (ties go to the first in response order).

# %% tags=["nbval-check-output"]
best = best_tier(frame)
readable(best[["order_id", "customer_source_id", "tier_id", "discount_amount", "amount", "total_amount"]],
         money=["discount_amount", "amount", "total_amount"])

# %% tags=["nbval-check-output"]
wins = best["tier_id"].astype(str).value_counts()
wins.rename("orders won")

# %% [markdown]
# ## Why a tier does not apply
#
# Every row of an invalid tier carries the engine's reason. Counting them shows what keeps a
# tier from reaching orders:

# %% tags=["nbval-check-output"]
invalid = frame[~frame["valid"]]
reasons = invalid.groupby(["tier_id", "reason"], observed=True).size().rename("orders")
reasons[reasons.index.get_level_values("tier_id").isin(["promo_welcome_10", "promo_beans_per_bag", "promo_vip_10pct", "promo_brew_bundle"])]

# %% [markdown]
# ## One cart, every customer
#
# A grinder and a kettle: who gets what? Passing a **list** of customers prices every order for
# each of them (a cross product). The VIP tiers apply to Alice and Dave (the VIP segment)
# only; the bundle price applies to everybody.

# %% tags=["nbval-check-output"]
cart = order_request([{"product_id": "prod_grinder", "quantity": 1}, {"product_id": "prod_kettle", "quantity": 1}])
people = ["alice", "bob", "carol", "dave", "erin", "frank"]
per_customer = compare_tiers(sim, cart, customers=people)
table = pivot_tiers(per_customer).droplevel("order_id")  # cents
applies = table.columns[(table > 0).any()]
readable(table[applies], money=applies)

# %% tags=["nbval-check-output"]
readable(best_tier(per_customer)[["customer_source_id", "tier_id", "discount_amount", "total_amount"]].reset_index(drop=True),
         money=["discount_amount", "total_amount"])

# %% [markdown]
# ## And on Saturday?
#
# Campaigns have validity windows. The *Weekend brewing* campaign runs on Saturdays and Sundays;
# `at=` prices at another instant of the simulated clock (the simulator itself does not move).

# %% tags=["nbval-check-output"]
saturday = compare_tiers(sim, baskets, at="2026-03-07T10:00:00Z")
pd.DataFrame({
    "Friday": best["tier_id"].astype(str).to_numpy(),
    "Saturday": best_tier(saturday)["tier_id"].astype(str).to_numpy(),
}, index=best["order_id"].astype(str))

# %% [markdown]
# ## Discounts by tier, as a chart
#
# The average discount where each tier applies, over the twelve baskets (Friday prices), with
# the number of baskets it applies to: the VIP tier's large average comes from a single order.

# %%
fig, ax = plt.subplots(figsize=(10, 4.5))
plot_discount_by_tier(frame, stat="mean", ax=ax)  # tiers by name; a row without a bar says why
fig.tight_layout()
plt.show()
