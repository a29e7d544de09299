"""`promolab.Simulator`: the core simulator wired to the layers above it.

The core (`promolab.sim.Simulator`) holds the state and answers
operations; it imports nothing from `http`, `client` or pandas (the layer
contracts in pyproject.toml). What a notebook or a test suite also wants from
the object it holds lives here instead:

- `client()` / `async_client()`: a `Client` talking to this simulator through
  the full HTTP face (routing, auth, JSON, error bodies), in-process;
- `transactions()` / `webhook_deliveries()`: its ledgers as DataFrames.

`Simulator.from_scenario(...)` and `Simulator.restore(...)` build this class,
so everything a user gets from `promolab` has these methods; code below this
layer (the served simulator, the replay) works with the core alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .client import AsyncClient, Client
from .http.transport import AsyncSimulatorTransport, SimulatorTransport
from .sim import Simulator as CoreSimulator

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Simulator"]

#: The base URL of in-process clients (never resolved: the transport answers).
IN_PROCESS_URL = "http://promolab.local"


class Simulator(CoreSimulator):
    __doc__ = CoreSimulator.__doc__

    # -- clients -----------------------------------------------------------
    def client(self, **options: Any) -> Client:
        """A `Client` wired to this simulator in-process (no sockets)."""
        return Client(**self._client_arguments(), transport=SimulatorTransport(self), **options)

    def async_client(self, **options: Any) -> AsyncClient:
        """An `AsyncClient` wired to this simulator in-process (no sockets)."""
        return AsyncClient(**self._client_arguments(), transport=AsyncSimulatorTransport(self), **options)

    def _client_arguments(self) -> dict[str, Any]:
        creds = self.state.project.credentials
        return {
            "base_url": IN_PROCESS_URL,
            "app_id": creds.app_id,
            "app_token": creds.app_token.get_secret_value(),
            "access_token": creds.access_token.get_secret_value(),
            "management_id": creds.management_id,
            "management_token": creds.management_token.get_secret_value(),
        }

    # -- frames ------------------------------------------------------------
    def transactions(self) -> pd.DataFrame:
        """Card transactions as a DataFrame (see docs/analysis.md for columns)."""
        from .analysis.state_frames import card_transactions_frame

        return card_transactions_frame(self)

    def webhook_deliveries(self) -> pd.DataFrame:
        """Every webhook delivery attempt as a DataFrame (docs/analysis.md)."""
        from .analysis.state_frames import deliveries_frame

        return deliveries_frame(self)
