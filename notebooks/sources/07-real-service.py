# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 7. One notebook, three targets
#
# Everything so far ran against the simulator **in-process**. The same `promolab.Client`
# talks to the simulator **served over HTTP** (`promolab serve`, what other teams use as a
# local stand-in in their test suites) and to a **real deployment** of the service. Only the
# base URL, the credentials and the transport change, so the analysis is written once, as a
# function taking a `Client`:

# %%
import atexit
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pandas as pd
from IPython.display import display

from promolab import ApiError, Client, Simulator
from promolab.analysis import order_request, validation_frame
from promolab.widgets import readable

pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
pd.set_option("display.html.use_mathjax", False)  # "$10 ... $50" in a table is money, not maths

DATA = Path("..") / "data"  # notebooks run from notebooks/
DEMO = DATA / "scenarios" / "demo.yaml"

# A cart with explicit unit prices, so that a service whose catalogue does not know these
# products can still price it.
CART = order_request(
    [{"product_id": "prod_grinder", "quantity": 1, "price": 8900},
     {"product_id": "prod_beans_ethiopia", "quantity": 3, "price": 1800}],
    customer="alice",
)


def promotions_for_cart(client: Client) -> pd.DataFrame:
    """Which promotion tiers apply to CART, and what each takes off (cents)."""
    result = client.validate_promotions(**CART)
    frame = validation_frame([result])
    return frame[["tier_id", "tier_name", "discount_type", "amount", "total_discount_amount", "total_amount"]]


MONEY = ["amount", "total_discount_amount", "total_amount"]  # shown with the currency by `readable`


# %% [markdown]
# ## Target 1: the simulator, in-process
#
# `sim.client()` wires the client to the simulator through an httpx transport: no sockets, the
# same requests and responses as over the network.

# %% tags=["nbval-check-output"]
sim = Simulator.from_scenario(DEMO)
in_process = promotions_for_cart(sim.client())
readable(in_process, money=MONEY)

# %% [markdown]
# ## Target 2: the simulator, served over HTTP
#
# We start `promolab serve` in a subprocess on 127.0.0.1 (stopped in the last cell, or when
# the kernel exits) and wait until it answers. The port: `PROMOLAB_PORT` if it is set (e.g.
# one a firewall or a tunnel lets through), else a free one.

# %%
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


port = int(os.environ.get("PROMOLAB_PORT") or 0) or free_port()
server = subprocess.Popen(
    [sys.executable, "-m", "promolab.cli", "serve", "--scenario", str(DEMO),
     "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
atexit.register(server.terminate)
base_url = f"http://127.0.0.1:{port}"
deadline = time.monotonic() + 60
while True:
    try:
        if httpx.get(f"{base_url}/openapi.json", timeout=1.0).status_code == 200:
            break
    except httpx.TransportError:
        pass
    if server.poll() is not None or time.monotonic() > deadline:
        raise RuntimeError(f"promolab serve did not start (exit code {server.poll()})")
    time.sleep(0.1)
print("served simulator is up")

# %% [markdown]
# The served simulator checks the interface's credentials: the demo scenario's app and
# management keys (a real deployment gives you yours).

# %% tags=["nbval-check-output"]
credentials = sim.state.project.credentials
served = Client(
    base_url,
    app_id=credentials.app_id,
    app_token=credentials.app_token.get_secret_value(),
    access_token=credentials.access_token.get_secret_value(),
    management_id=credentials.management_id,
    management_token=credentials.management_token.get_secret_value(),
)
over_http = promotions_for_cart(served)
print("same answer as in-process:", over_http.equals(in_process))
readable(over_http, money=MONEY)

# %% [markdown]
# A served simulator also has a **control API** under `/_sim/` (management credentials):
# read and move its clock, dump, snapshot, restore or reset its state, read the webhook
# deliveries. The same client methods work in-process.

# %% tags=["nbval-check-output"]
print("served clock:    ", served.control.clock()["now"])
print("after +1 day:    ", served.control.advance(86400)["now"])
print("in-process clock:", sim.client().control.clock()["now"])

# %% [markdown]
# A wrong key is refused the way the real service refuses it:

# %% tags=["nbval-check-output"]
intruder = Client(base_url, app_id=credentials.app_id, app_token="not-the-token")
try:
    intruder.validate_promotions(**CART)
except ApiError as error:
    print(error.status, error.error.key)

# %% [markdown]
# ## Target 3: a real deployment
#
# Set these environment variables before starting Jupyter to point the very same function at a
# real deployment of the service (nothing is written: validation is a read):
#
# | variable | |
# |---|---|
# | `PROMOLAB_BASE_URL` | the API's base URL, e.g. `https://api.voucherify.io` |
# | `PROMOLAB_APP_ID`, `PROMOLAB_APP_TOKEN` | application keys |
# | `PROMOLAB_ACCESS_TOKEN` | optional: the loyalty API's bearer token |
# | `PROMOLAB_MANAGEMENT_BASE_URL`, `PROMOLAB_MANAGEMENT_ID`, `PROMOLAB_MANAGEMENT_TOKEN` | optional: management API |
#
# Without them, the cell says so and moves on.

# %%
REQUIRED = ["PROMOLAB_BASE_URL", "PROMOLAB_APP_ID", "PROMOLAB_APP_TOKEN"]
missing = [name for name in REQUIRED if not os.environ.get(name)]
if missing:
    print(f"Real service: skipped ({', '.join(missing)} not set).")
else:
    real = Client(
        os.environ["PROMOLAB_BASE_URL"],
        app_id=os.environ["PROMOLAB_APP_ID"],
        app_token=os.environ["PROMOLAB_APP_TOKEN"],
        access_token=os.environ.get("PROMOLAB_ACCESS_TOKEN"),
        management_base_url=os.environ.get("PROMOLAB_MANAGEMENT_BASE_URL"),
        management_id=os.environ.get("PROMOLAB_MANAGEMENT_ID"),
        management_token=os.environ.get("PROMOLAB_MANAGEMENT_TOKEN"),
    )
    try:
        display(readable(promotions_for_cart(real), money=MONEY))
    except ApiError as error:
        print(f"Real service answered {error.status} {error.error.key}: {error.error.message}")
    except httpx.TransportError as error:
        print(f"Real service unreachable: {type(error).__name__}: {error}")

# %% [markdown]
# ## Stop the served simulator

# %% tags=["nbval-check-output"]
served.close()
server.terminate()
try:
    server.wait(timeout=10)
except subprocess.TimeoutExpired:
    server.kill()
    server.wait(timeout=10)
atexit.unregister(server.terminate)
print("served simulator stopped:", server.poll() is not None)
