# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 3. What does a campaign cost?
#
# Finance asks a simple question before the spring planning meeting: *if our current
# promotions ran over a month of orders, what would they cost, how many orders would they
# reach, and how big is the typical discount?*
#
# We take the 12,000 sample orders and **sweep** them against every active tier.
# `promolab.analysis.sweep` evaluates orders x tiers with vectorized numpy, to the cent
# (it agrees with the per-request engine, tested on random orders), and the same sweep runs on
# **Dask** when one core is not enough.
#
# The results stay in integer cents and fractions, ready for more computing; the tables below
# show them with the currency, as percentages and with separators (`readable`), and the charts'
# money axes read in dollars.

# %%
import time
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from promolab import Simulator
from promolab.analysis import (
    notebook_style,
    plot_discount_by_tier,
    plot_discount_distribution,
    prepare_orders,
    scenario_names,
    sweep,
)
from promolab.display import format_count, format_share
from promolab.widgets import readable

notebook_style()  # figure size, and twice the pixels: crisp on a slide
pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
pd.set_option("display.html.use_mathjax", False)  # "$10 ... $50" in a table is money, not maths

DATA = Path("..") / "data"  # notebooks run from notebooks/
sim = Simulator.from_scenario(DATA / "scenarios" / "demo.yaml")

# %% [markdown]
# ## The orders

# %% tags=["nbval-check-output"]
orders = pd.read_parquet(DATA / "orders" / "sample_orders.parquet")
per_order = orders.groupby("order_id", sort=False).agg(lines=("quantity", "size"), units=("quantity", "sum"))
print(f"{format_count(orders['order_id'].nunique())} orders, {format_count(len(orders))} lines, "
      f"{format_count(per_order['units'].sum())} units; "
      f"{format_share(orders.drop_duplicates('order_id')['customer_source_id'].notna().mean(), 0)} with a customer")
per_order.describe().loc[["mean", "min", "50%", "max"]].rename(index={"50%": "median"}).round(1)

# %% [markdown]
# ## The sweep
#
# One row per (order, tier): `valid`, `discount_amount` (0 when the tier does not apply),
# `total_amount` and `reason_key`. `paths` says how each tier was evaluated: `vectorized`
# (numpy only) or `hybrid` (masks select the orders, the engine prices those).
#
# While it works, a sweep shows a progress bar (tqdm: a bar under the cell in Jupyter, a line
# of text in a terminal) that goes away when it is done; here it is over in a moment, on a few
# million orders it is not. `progress=False` runs it silently.

# %%
batch = prepare_orders(sim, orders)  # line items as columns; reusable across sweeps
result = sweep(sim, batch)

# %% tags=["nbval-check-output"]
print(result)
readable(result.frame.head(4), money=["discount_amount", "total_amount"])

# %% tags=["nbval-check-output"]
result.paths[["tier_id", "kind", "effect", "path"]]

# %% [markdown]
# ## Cost, reach and average discount per tier
#
# `summary()` per tier: `share_affected` is the reach (orders where the tier applies / all
# orders), `cost` the sum of discounts, `avg_discount` the mean where it applies (`-`: the tier
# applies to no order). The frame holds cents and fractions; shown with the currency below.

# %% tags=["nbval-check-output"]
summary = result.summary()
columns = ["tier_id", "share_affected", "valid_orders", "cost", "avg_discount", "cost_per_order"]
readable(summary[columns], shares=["share_affected"], counts=["valid_orders"],
         money=["cost", "avg_discount", "cost_per_order"])

# %% [markdown]
# Tiers of one campaign do not stack: per campaign, each order counts once, with the tier it
# would redeem (the first valid one in hierarchy order).

# %% tags=["nbval-check-output"]
by_campaign = result.summary("campaign")
readable(by_campaign[["campaign_id", "tiers", "valid_orders", "share_affected", "cost"]],
         shares=["share_affected"], counts=["valid_orders"], money=["cost"])

# %% [markdown]
# ## Where the money goes
#
# Left: total cost per tier, with the orders each reaches. Right: the distribution of discounts
# for the three bean and gear tiers: the 15% tier's caps (\$15 a line, \$30 an order) show as
# spikes.

# %%
names = scenario_names(sim)  # the sweep's frame has ids; the chart reads the scenario's names
fig, (left, right) = plt.subplots(1, 2, figsize=(14, 4.8), width_ratios=[1.25, 1])
plot_discount_by_tier(result.frame, stat="sum", ax=left, names=names)
left.set_xlabel(f"total discount over {format_count(result.n_orders)} orders")
focus = ["promo_beans_15", "promo_beans_per_bag", "promo_gear_split"]
plot_discount_distribution(result.frame[result.frame["tier_id"].isin(focus)], tiers=focus, bins=30, ax=right,
                           names=names)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## The same sweep on Dask
#
# `engine="dask"` splits the orders into partitions (whole orders each) and runs them on
# Dask's threaded scheduler, or on a `distributed.Client` passed as `client=`. The frame is
# identical, row for row. (Its progress bar counts orders as the partitions finish.)

# %%
on_dask = sweep(sim, batch, engine="dask", npartitions=4)

# %% tags=["nbval-check-output"]
pd.testing.assert_frame_equal(on_dask.frame, result.frame)
print("identical frames:", on_dask.frame.equals(result.frame))
print("identical summaries:", on_dask.summary().equals(result.summary()))
print(on_dask)

# %% [markdown]
# Timing on this machine (wall-clock, so nbval's sanitizer masks the numbers), without the
# progress bar, so that the figures are the sweep's alone:

# %% tags=["nbval-check-output"]
for engine in ("pandas", "dask"):
    started = time.perf_counter()
    sweep(sim, batch, engine=engine, npartitions=4, progress=False)
    print(f"{engine:6}: {time.perf_counter() - started:.2f} s wall for {format_count(result.n_orders)} orders x {len(result.tier_ids)} tiers")

# %% [markdown]
# ## What if the month were all weekends?
#
# `at=` prices at another instant. On a Saturday the *Weekend brewing* campaign opens up:
# free filters for everybody, a mug and filters for grinder buyers.

# %%
saturday = sweep(sim, batch, tiers=["promo_weekend_filters", "promo_weekend_starter", "promo_welcome_10"],
                 at="2026-03-07T10:00:00Z")

# %% tags=["nbval-check-output"]
readable(saturday.summary()[["tier_id", "path", "valid_orders", "share_affected", "cost", "avg_discount"]],
         counts=["valid_orders"], shares=["share_affected"], money=["cost", "avg_discount"])
