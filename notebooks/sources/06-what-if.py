# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 6. What if? Tune a tier, see the effect at once
#
# The welcome offer, *\$10 off orders over \$50*, reaches 87% of orders. What if it were \$15?
# What if the minimum were \$80? What if it applied to every item instead of the order?
#
# The dashboard below has two halves:
#
# - the **order builder** (customer, quantities): every active tier is priced on the order,
#   with the reason when a tier does not apply, and the tuned tier's *what-if* copy right
#   after the original (orange);
# - the **tier tuner** (tier, discount value, effect, minimum order amount): the what-if copy
#   is swept over the 12,000 sample orders and compared with the original: cost, reach,
#   average discount, before vs after.
#
# Every change re-runs both and redraws the tables and the chart. The scenario is never
# modified: the tuner edits a copy of the tier (a what-if `TierSpec`).
#
# *Run all cells (or open this notebook with Voila) to get live controls; where widgets cannot
# run (a static render of the notebook), the dashboard's cell shows a snapshot of it.*

# %%
import pandas as pd
from IPython.display import Image, display

from promolab import samples
from promolab.analysis import notebook_style, sweep
from promolab.scenario_file import open_scenario
from promolab.widgets import (
    WhatIfController,
    WhatIfDashboard,
    best_line,
    comparison_display,
    figure_png,
    order_display,
    outlook_line,
    tier_display,
    variants_figure,
    whatif_figure,
)

notebook_style()  # figure size, and twice the pixels: crisp on a slide
pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
pd.set_option("display.html.use_mathjax", False)  # "$10 ... $50" in a table is money, not maths

# The sample data through promolab.samples, not ../data: `promolab dashboard` serves this
# notebook from the installed package too, where there is no data/ beside it.
# open_scenario: the simulator and the scenario's currency (its project.currency, which the
# simulator does not keep); the dashboard shows every amount in it (the demo's: USD).
sim, currency = open_scenario(samples.demo_scenario())
orders = pd.read_parquet(samples.sample_orders())

# %% [markdown]
# ## The dashboard
#
# Alice's cart to start with. (`WhatIfController(sim, orders, sample=N)` sweeps a seeded sample
# of N orders instead of all of them, for very large order sets; `currency=` is the scenario's,
# which every table, chart and label shows; `what_if(sim, orders, ...)` builds controller and
# dashboard in one call.)

# %%
controller = WhatIfController(sim, orders, currency=currency)
controller.set_order("alice", prod_grinder=1, prod_beans_ethiopia=3)
dashboard = WhatIfDashboard(controller)
dashboard

# %% [markdown]
# ## The same, scripted
#
# The dashboard is a thin view over `WhatIfController`, which can be driven from code (and is
# unit-tested that way). A second controller, so the dashboard above keeps its own state:
# Bob's cart, and the welcome offer at \$15 off orders of at least \$80.

# %% tags=["nbval-check-output"]
scripted = WhatIfController(sim, orders, currency=currency)
scripted.set_order("bob", prod_kettle=1, prod_mug=2)
result = scripted.update(value=1500, min_amount=8000)
print(result.whatif.discount, result.whatif.rules)
tier_display(result)

# %% tags=["nbval-check-output"]
order_display(result).head(6)

# %%
display(Image(figure_png(whatif_figure(result)), retina=True))  # twice the pixels, shown at half

# %% [markdown]
# Bob's cart (\$78) still gets the original \$10 but not the what-if \$15: it is under the new
# \$80 minimum. Over all orders the richer offer reaches fewer orders and costs more.
#
# Switching effect: \$15 off **every matching item** instead of the order (no `applicable_to`:
# every line matches) is a very different campaign:

# %% tags=["nbval-check-output"]
tier_display(scripted.set_effect("APPLY_TO_ITEMS"))

# %% [markdown]
# The figures are exactly those of the analysis layer: `sweep` of the what-if `TierSpec` (one
# tier, over in a moment: no progress bar).

# %% tags=["nbval-check-output"]
direct = sweep(sim, orders, [scripted.result.whatif], progress=False).summary()
print(direct.loc[0, "cost"] == scripted.result.tier_table.at["after", "cost"],
      direct.loc[0, "valid_orders"] == scripted.result.tier_table.at["after", "orders_reached"])

# %% [markdown]
# ## What the cost buys, and the best value
#
# Under the tables the dashboard shows, beside the tuned tier's cost, what it is expected to
# bring: incremental net revenue under the default response model, with its P10-P90 band (the
# optimizer's formulas; no cost of goods is known here, so it is an upper bound). **Find the
# best** asks the optimizer which value of a small grid of the tier's own kind brings the most
# under the scenario's budgets, with the runner-up and the gap; the tier changes only when
# **Apply best** is pressed (here: `apply_best`).

# %% tags=["nbval-check-output"]
print(outlook_line(scripted.result))
best = scripted.find_best()
print(best_line(best, scripted.edit, currency=currency))

# %% [markdown]
# ## Variants: keep a tuning, compare several
#
# Under the chart, the dashboard's **Variants** panel keeps the tuned tier under a name
# ("Save variant"), lists what each saved one changes, puts one back into the tuner ("Load")
# and compares them all with the current scenario ("Compare variants"). In code: the same
# controller methods. Two ideas for the welcome offer, each swept over the same orders:

# %% tags=["nbval-check-output"]
scripted.reset_tier()
scripted.update(value=1500)
scripted.save_variant("$15 off")
scripted.update(min_amount=8000)
scripted.save_variant("$15 off over $80")
scripted.variants()

# %% tags=["nbval-check-output"]
variants = scripted.compare_variants()
comparison_display(variants)[["variant", "changes", "share_affected", "cost", "cost_change", "avg_discount"]]

# %%
display(Image(figure_png(variants_figure(variants)), retina=True))

# %% [markdown]
# The richer offer alone costs half as much again; with the \$80 minimum it reaches 11 points
# fewer orders and gives back about \$20,000 of the extra \$52,000.
#
# Over dated orders, `compare_variants(dated_orders=...)` forecasts the whole shop with each
# variant in place of its tier, budgets spent in time order (`compare_scenarios`,
# docs/analysis.md).
