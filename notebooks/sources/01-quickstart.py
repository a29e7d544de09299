# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 1. Quickstart: one cart, every promotion
#
# **Kestrel Coffee Roasters** is a small online coffee shop (the demo scenario in
# `data/scenarios/demo.yaml`): beans, brewing gear and merch, seven promotion campaigns,
# coupons, gift cards, a loyalty club and two webhooks.
#
# Alice, one of the shop's regulars, has a burr grinder and three bags of Ethiopian beans in
# her cart. Which promotions apply, how much does each take off, and which is the best deal?
#
# We load the scenario into an **in-process simulator** (deterministic: seeded ids, a simulated
# clock), talk to it with the same **typed client** that talks to the real service, and read
# the answer as a pandas DataFrame.
#
# Money is integer cents in the data; every table below is shown through `readable`, which
# writes amounts with their currency (`promolab.display.format_money`), shares as percentages
# and counts with separators, and leaves the data frame itself in cents.

# %%
from pathlib import Path

import pandas as pd

from promolab import Simulator
from promolab.analysis import compare_tiers, notebook_style, order_request, validation_frame
from promolab.display import format_money
from promolab.widgets import readable

notebook_style()  # figure size, and twice the pixels: crisp on a slide
pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
pd.set_option("display.html.use_mathjax", False)  # "$10 ... $50" in a table is money, not maths

DATA = Path("..") / "data"  # notebooks run from notebooks/
DEMO = DATA / "scenarios" / "demo.yaml"

# %% [markdown]
# ## Load the shop
#
# The simulator holds the whole project: catalogue, customers, campaigns, loyalty, webhooks.
# Its clock starts where the scenario says (a Friday morning) and only moves when told to.

# %% tags=["nbval-check-output"]
sim = Simulator.from_scenario(DEMO)
sim

# %% tags=["nbval-check-output"]
catalogue = pd.DataFrame(
    [{"product_id": p.id, "name": p.name, "price": p.price}  # cents
     for p in sim.state.products.values() if p.price is not None]
)
readable(catalogue, money=["price"])

# %% [markdown]
# ## Build an order
#
# `order_request` builds the body of a validation request: line items (product or SKU ids,
# quantities, optional prices) and an optional customer. It is plain JSON, so the same request
# can go to the simulator, a served simulator or the real service.

# %% tags=["nbval-check-output"]
request = order_request(
    [{"product_id": "prod_grinder", "quantity": 1},
     {"product_id": "prod_beans_ethiopia", "quantity": 3}],
    customer="alice",
)
request

# %% [markdown]
# ## Validate promotions
#
# `sim.client()` is a `promolab.Client` wired to the simulator in-process (no sockets). Its
# methods return the interface's pydantic models.

# %% tags=["nbval-check-output"]
client = sim.client()
result = client.validate_promotions(**request)
print("valid:", result.valid)
print("tiers that apply:", len(result.promotions))
for tier in result.promotions:
    discount, total = tier.order.total_discount_amount, tier.order.total_amount  # cents; None: no amount
    print(f"  {tier.id:22} {tier.name:46} discount {format_money(discount):>7}  total {format_money(total):>8}")

# %% [markdown]
# ## The answer as a DataFrame
#
# `validation_frame` flattens responses into one row per valid tier, money in integer cents
# (`Int64`: `<NA>` where the service leaves a field out, e.g. free shipping has no monetary value,
# shown as `-`).

# %% tags=["nbval-check-output"]
frame = validation_frame([result], order_ids=["alice-cart"])
readable(frame[["tier_id", "campaign_id", "discount_type", "effect", "amount", "total_discount_amount", "total_amount"]],
         money=["amount", "total_discount_amount", "total_amount"])

# %% [markdown]
# Tiers of one campaign do not stack, and each tier is priced on the original cart. The best
# single deal for Alice is the tier with the lowest total:

# %% tags=["nbval-check-output"]
best = frame.sort_values(["total_amount", "hierarchy"]).iloc[0]
print(f"best: {best.tier_id} ({best.tier_name}): pay {format_money(best.total_amount)} instead of {format_money(best.amount)}")

# %% [markdown]
# ## And the tiers that did not apply?
#
# The validation response lists valid tiers only. `compare_tiers` prices every active tier with
# the same engine and says *why* a tier does not apply (the figures of valid tiers are exactly
# the response's).

# %% tags=["nbval-check-output"]
compared = compare_tiers(sim, request)
compared.loc[~compared["valid"], ["tier_id", "reason_key", "reason"]].reset_index(drop=True)

# %% [markdown]
# Validation is a read: nothing in the simulator changed, and the clock did not move.

# %% tags=["nbval-check-output"]
print(sim.now.isoformat(), len(sim.state.publications), "publications")
