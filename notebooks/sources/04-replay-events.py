# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 4. Replaying a day at the shop
#
# Friday, 6 March 2026. Customers get newsletter codes, place orders that earn loyalty points,
# refer friends, buy rewards with their points, and gift cards are topped up, each top-up
# notifying two webhooks (this notebook, and a CRM that is down until its integration is
# switched off).
#
# The day is an **event sequence** (`data/events/demo_day.jsonl`, JSON Lines in the
# simulator's journal format). `promolab.replay.replay` applies it on the **simulated clock**:
# each line happens at its `at` instant, and the work falling due in between (pending reward
# purchases settling, webhook retries) runs at its own instant. The result is a **timeline**
# DataFrame, the balances after every line, and the webhook delivery log.

# %%
import hashlib
import hmac
import json
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd

from promolab import Simulator
from promolab.analysis import notebook_style, plot_delivery_attempts
from promolab.analysis.plots import count_axis
from promolab.replay import read_events, replay
from promolab.widgets import readable

notebook_style()  # figure size, and twice the pixels: crisp on a slide
pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 20)
pd.set_option("display.max_colwidth", 80)  # the timeline's result text whole
pd.set_option("display.html.use_mathjax", False)  # "$10 ... $50" in a table is money, not maths

DATA = Path("..") / "data"  # notebooks run from notebooks/
sim = Simulator.from_scenario(DATA / "scenarios" / "demo.yaml")

# %% [markdown]
# ## The event sequence
#
# One operation per line: `op`, its `args` (the interface's request bodies), when it happens
# (`at`) and a `note`. Lines noted `expect ...` are refused by the service on purpose.

# %% tags=["nbval-check-output"]
events = read_events(DATA / "events" / "demo_day.jsonl")
pd.DataFrame({"at": [e.at for e in events], "op": [e.op for e in events], "note": [e.note for e in events]})

# %% [markdown]
# ## Webhook receivers
#
# The scenario's two webhook configurations deliver to in-process receivers named `notebook`
# and `crm`. Ours checks each delivery's signature (hex HMAC-SHA256 of the body with the
# configuration's secret) and keeps the payload. The CRM is down and answers 503: the simulator
# retries after 1, 2, 4, 8, ... minutes of simulated time.

# %%
inbox = []


def notebook_receiver(headers, body):
    expected = hmac.new(b"kestrel-webhook-secret", body, hashlib.sha256).hexdigest()
    signature = {k.lower(): v for k, v in headers.items()}["x-voucherify-signature"]
    payload = json.loads(body)
    inbox.append({"signature_ok": hmac.compare_digest(signature, expected), "type": payload.get("type")})
    return 200


crm_calls = []


def crm_down(headers, body):
    crm_calls.append(len(body))
    return 503


sim.register_receiver("notebook", notebook_receiver)
sim.register_receiver("crm", crm_down)

# %% [markdown]
# ## Replay
#
# `progress=True` shows a progress bar while the lines are applied (tqdm: under the cell in
# Jupyter, gone when done). Twenty-three lines take no time; a real day's log of a busy shop
# does.

# %%
result = replay(sim, events, progress=True)

# %% tags=["nbval-check-output"]
print(result.summary())

# %% [markdown]
# ## The timeline
#
# One row per line: the clock after it, the operation, its outcome (`ok` or the service's error
# key) and HTTP status, a short result, and counts of the state after it.

# %% tags=["nbval-check-output"]
timeline = result.timeline
timeline[["line", "time", "op", "outcome", "status", "result"]]

# %% tags=["nbval-check-output"]
timeline[["line", "op", "publications", "events", "conversions", "pending_purchases", "deliveries", "pending_deliveries"]].tail(12)

# %% [markdown]
# ## Balances after every line
#
# Loyalty cards (points) and gift cards (money, held in cents) that moved during the day, one
# column each, forward-filled (line 0 is the opening balance).

# %% tags=["nbval-check-output"]
balances = result.balances
moved = balances.loc[balances["change"].fillna(0) != 0, "account"].unique()
table = result.balance_table()[list(moved)]
gift_cards = balances.loc[(balances["kind"] == "gift") & balances["account"].isin(moved), "account"].unique()
lines = [0] + sorted(set(balances.loc[balances["account"].isin(moved) & (balances["line"] > 0), "line"]))
readable(table.loc[lines], money=gift_cards, counts=[a for a in moved if a not in set(gift_cards)])

# %% [markdown]
# ## Webhook deliveries
#
# Every attempt, with the line during which it was made. The CRM's attempts fail and are
# retried with growing delays; once its configuration is deleted (line 16, 13:00) its retries
# stop and nothing more is sent to it.

# %% tags=["nbval-check-output"]
deliveries = result.deliveries
deliveries[["line", "webhook_id", "attempt", "attempted_at", "outcome", "status_code", "next_attempt_at"]]

# %% tags=["nbval-check-output"]
print(f"{len(inbox)} deliveries received by the notebook, signatures ok: {all(d['signature_ok'] for d in inbox)}")
print(sorted({d["type"] for d in inbox}))
print(f"CRM calls: {len(crm_calls)}")

# %% [markdown]
# ## The day as a chart
#
# Top: the Coffee Club points cards over the (simulated) day. Middle: how many publications and
# tracked events there are so far, and how many reward purchases are pending. Bottom: webhook
# delivery attempts, by receiver and outcome: the CRM's retries come minutes apart and would hide
# behind each other at this scale, so each marker counts the attempts of its hour (×n).

# %%
fig, (top, middle, bottom) = plt.subplots(3, 1, figsize=(10, 8), sharex=True)
cards = balances[(balances["kind"] == "card") & balances["account"].isin(moved)
                 & balances["account"].str.endswith("_beans")]
start = timeline["time"].iloc[0]
for account, rows in cards.groupby("account", sort=True):
    rows = rows.sort_values("line")
    times = [start if line == 0 else t for line, t in zip(rows["line"], rows["time"])]
    top.step(times + [timeline["time"].iloc[-1]], list(rows["balance"]) + [rows["balance"].iloc[-1]],
             where="post", label=account)
top.set_ylabel("points")
count_axis(top.yaxis)
top.legend(fontsize="small", ncol=2)
top.set_title("Coffee Club points cards")

for column in ("publications", "events", "pending_purchases"):
    middle.step(timeline["time"], timeline[column], where="post", label=column)
middle.legend(fontsize="small")
middle.set_ylabel("count")
count_axis(middle.yaxis)
middle.set_title("Publications, events, pending purchases")

plot_delivery_attempts(deliveries, ax=bottom)  # attempts minutes apart: counted per slot of the day drawn
bottom.xaxis.set_major_formatter(matplotlib.dates.DateFormatter("%H:%M"))
bottom.set_xlabel("simulated time (UTC), Friday 6 March 2026")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Same sequence, same result
#
# The replay is exact: a fresh simulator with the same receivers ends in the very same state.

# %% tags=["nbval-check-output"]
again = Simulator.from_scenario(DATA / "scenarios" / "demo.yaml")
again.register_receiver("notebook", lambda headers, body: 200)
again.register_receiver("crm", lambda headers, body: 503)
replay(again, events)
print("same state:", again.dump_json() == sim.dump_json())
