"""promolab: explore and simulate a loyalty, voucher and promotion service.

The public API is small on purpose:

- `Simulator`: the in-process, deterministic simulator (`sim.client()` for a
  typed client wired to it without sockets);
- `Client` / `AsyncClient`: the typed httpx client, for the simulator, a
  served simulator or a real deployment;
- `ApiError`: what a non-2xx answer raises;
- `ScenarioError`: what a bad scenario file raises;
- `with_changes`: a scenario with a tier's value (or rule, or a stacking
  setting) changed, to forecast or sweep against the original.

Wire models live in `promolab.models`, analysis in `promolab.analysis`.
"""

from .client import ApiError, AsyncClient, Client
from .inprocess import Simulator
from .sim.scenario import ScenarioError, with_changes
from .version import __version__

__all__ = ["ApiError", "AsyncClient", "Client", "ScenarioError", "Simulator", "__version__", "with_changes"]
