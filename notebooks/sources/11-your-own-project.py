# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 11. Your own project: pull it, then ask what a change would have done
#
# Every notebook so far ran on the demo shop. This one starts from a project the notebook does
# not know in advance, reads it through the service's read endpoints into a scenario
# (`promolab pull`), brings its history along, and asks the analyst's first question about their
# own campaigns: **what would this change have done to last month's orders?**
#
# Here the "real project" is a simulator served in-process, loaded from a scenario the rest of
# the notebook never reads (`samples.forecast_scenario()`); against a real deployment the same
# calls take a `Target.from_env()` and the `PROMOLAB_*` credentials (docs/pull.md). Money is
# integer cents in the frames; tables a person reads go through `format_money`.

# %%
import tempfile
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pandas as pd

from promolab import Simulator, samples, with_changes
from promolab.analysis import forecast, notebook_style, retro_replay, send_one_by_one
from promolab.display import format_count, format_money
from promolab.http.transport import SimulatorTransport
from promolab.pull import ProjectFacts, PullOptions, pull, report_path
from promolab.shadow import Target
from promolab.shadow.sides import keys_of

notebook_style()
pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 20)
pd.set_option("display.html.use_mathjax", False)

# %% [markdown]
# ## The project, and a morning of its history
#
# The served project takes the first 1,500 orders of March 2026 through its checkout, one by one:
# each is validated and redeems the best promotion it qualifies for at its own instant, as a
# shop's checkout would. That is the history a pull will find.

# %% tags=["nbval-check-output"]
served = Simulator.from_scenario(samples.forecast_scenario())
target = Target("http://promolab.local", keys_of(served), transport=SimulatorTransport(served))

month = pd.read_parquet(samples.month_orders())
morning = month[month["order_id"].isin(month["order_id"].drop_duplicates().iloc[:1500])]
tiers = forecast(served, morning, progress=False).tier_ids   # the project's tiers, in its order
with served.client() as client:
    sent = send_one_by_one(client, morning, tiers, clock=served)
print(f"{format_count(len(sent))} orders sent, {format_count(int(sent['redeemed'].sum()))} redeemed, "
      f"{format_money(int(sent['discount'].sum()))} given")

# %% [markdown]
# ## The pull
#
# `pull` pages through every list (catalogue, customers, segments, categories, campaigns with
# their tiers, stacks and codes, validation rules, loyalty programs with their members' cards,
# rewards and earning rules), obeys the target's rate limits, and writes the
# scenario and, beside it, a report of everything the scenario cannot hold. What no read endpoint
# says (the project's id, which unlocks its stacking rules, and its time zone, which decides the
# days and weeks budgets count in) is told. `history_since` also reads the orders and the
# redemptions into frames (since March 1st in the shop's time zone: midnight in Berlin).

# %% tags=["nbval-check-output"]
out = Path(tempfile.mkdtemp()) / "ours.yaml"
pulled = pull(target, out, PullOptions(project=ProjectFacts("proj_kestrel", "Europe/Berlin"),
                                       history_since=datetime(2026, 3, 1, tzinfo=ZoneInfo("Europe/Berlin"))))
history = pulled.history
print(f"{format_count(pulled.objects)} objects in {format_count(pulled.calls)} calls; history: "
      f"{format_count(history.orders['order_id'].nunique())} orders, {format_count(len(history.redemptions))} redemptions")

# %% [markdown]
# Nothing is dropped silently: the report lists what was left out or not read, here the referral
# program's settings (the campaign reads do not show them) and what the v1 loyalty reads do not
# say: which campaigns were one program, an earning rule's incentive, an event's properties.

# %% tags=["nbval-check-output"]
pd.read_csv(report_path(out))[["object", "id", "field"]]

# %% [markdown]
# ## The pulled scenario prices as the project does
#
# Loaded, the pulled scenario answers a validation exactly as the project it came from
# (a fresh copy of it, before the morning's redemptions, so that both start alike).

# %% tags=["nbval-check-output"]
ours = Simulator.from_scenario(out)
theirs = Simulator.from_scenario(samples.forecast_scenario())
order = {"items": [{"product_id": "prod_beans_ethiopia", "quantity": 3}, {"product_id": "prod_mug", "quantity": 1}]}
with ours.client() as a, theirs.client() as b:
    answers = [c.validate_promotions(customer={"source_id": "alice"}, order=order).model_dump(mode="json")
               for c in (a, b)]
print("identical answers:", answers[0] == answers[1])
pd.DataFrame([{"tier": p["id"], "discount": format_money(p.get("discount_amount", 0)), "valid": p["valid"]}
              for p in answers[0]["promotions"]])

# %% [markdown]
# ## Retro-replay: the beans tier at 20 % instead of 15 %
#
# `retro_replay` prices every historical order again at its own instant, under the pulled
# scenario (`before`) and under a changed copy (`after`), budgets spent in time order, and sets
# both beside what was actually redeemed. The orders stay the same (a response to the richer
# discount is docs/response.md's question); what changes is which tier each order takes under the
# budgets (the beans tier has a weekly budget of 300 redemptions) and how much it gives.

# %% tags=["nbval-check-output"]
before = ours
after = Simulator.from_scenario(with_changes(out, {"tiers.promo_beans_15.discount.percent_off": 20}))
replay = retro_replay(before, after, history.orders, history.redemptions, policy="best")
totals = replay.totals()
totals.assign(**{c: totals[c].map(format_money) for c in ("actual", "before", "after")}).iloc[:1]

# %% tags=["nbval-check-output"]
per_tier = replay.per_tier()
shown = per_tier[per_tier["change"] != 0] if (per_tier["change"] != 0).any() else per_tier.head(3)
shown[["tier_id", "actual_redemptions", "actual_discount", "after_discount", "change"]].assign(
    **{c: lambda f, c=c: f[c].map(format_money) for c in ("actual_discount", "after_discount", "change")})

# %% [markdown]
# Where `before` and `actual` differ, the replay found something the scenario or the history does
# not say as the checkout saw it. Here it is 29 orders: the welcome tier applies once per
# customer per day, and the project kept no customer for these shoppers (a redemption does not
# create one in the simulator), so the orders list names none and the replay cannot count them.

# %% tags=["nbval-check-output"]
per_order = replay.per_order()
differ = per_order[per_order["actual_discount"] != per_order["before_discount"]]
print(f"{format_count(len(differ))} of {format_count(len(per_order))} orders priced otherwise than redeemed;"
      f" customer named on them: {int(differ['customer'].notna().sum())}")

# %%
replay.plot();
