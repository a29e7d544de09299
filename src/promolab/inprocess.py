"""`promolab.Simulator`: the core simulator wired to the layers above it.

The core (`promolab.sim.Simulator`) holds the state and answers
operations; it imports nothing from `http`, `client` or pandas (the layer
contracts in pyproject.toml). What a notebook or a test suite also wants from
the object it holds lives here instead:

- `client()` / `async_client()`: a `Client` talking to this simulator through
  the full HTTP face (routing, auth, JSON, error bodies), in-process;
- `served()`: the same simulator over real HTTP on a free port, for a
  while (a `Served`: base URL, credentials, clients), what a test suite
  would otherwise build from uvicorn and a thread;
- `transactions()` / `webhook_deliveries()`: its ledgers as DataFrames;
- `_repr_html_()`: what a notebook shows for it, a summary of what it holds.

`Simulator.from_scenario(...)` and `Simulator.restore(...)` build this class,
so everything a user gets from `promolab` has these methods; code below this
layer (the served simulator, the replay) works with the core alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sized
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .client import AsyncClient, Client, ClientKeys
from .display import format_count
from .http.server import serving_in_thread
from .http.transport import AsyncSimulatorTransport, SimulatorTransport
from .rich_summary import Summary, Table, currency_of
from .sim import Simulator as CoreSimulator
from .sim import format_instant

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Served", "Simulator"]

#: The base URL of in-process clients (never resolved: the transport answers).
IN_PROCESS_URL = "http://promolab.local"


@dataclass(frozen=True, slots=True)
class Served:
    """A simulator served over HTTP: where, with which keys, and clients of it.

    `sim` is the served simulator itself (same process): a test may change
    or inspect it directly between requests."""

    base_url: str
    sim: Simulator
    #: The project's keys, as `Client(base_url, **credentials)` takes them.
    credentials: ClientKeys

    def client(self, **options: Any) -> Client:
        """A `Client` of the served simulator (close it, or use it in `with`)."""
        return Client(self.base_url, **self.credentials, **options)

    def async_client(self, **options: Any) -> AsyncClient:
        """An `AsyncClient` of the served simulator."""
        return AsyncClient(self.base_url, **self.credentials, **options)


class Simulator(CoreSimulator):
    __doc__ = CoreSimulator.__doc__

    # -- clients -----------------------------------------------------------
    def client(self, **options: Any) -> Client:
        """A `Client` wired to this simulator in-process (no sockets)."""
        return Client(**self._client_arguments(), transport=SimulatorTransport(self), **options)

    def async_client(self, **options: Any) -> AsyncClient:
        """An `AsyncClient` wired to this simulator in-process (no sockets)."""
        return AsyncClient(**self._client_arguments(), transport=AsyncSimulatorTransport(self), **options)

    @contextmanager
    def served(self, *, host: str = "127.0.0.1") -> Iterator[Served]:
        """This simulator over real HTTP (uvicorn, in a thread) on a free port
        of `host` while the block runs; stopped after it."""
        with serving_in_thread(self, host=host) as base_url:
            yield Served(base_url, self, self._credentials())

    def _client_arguments(self) -> dict[str, Any]:
        return {"base_url": IN_PROCESS_URL, **self._credentials()}

    def _credentials(self) -> ClientKeys:
        creds = self.state.project.credentials
        return {
            "app_id": creds.app_id,
            "app_token": creds.app_token.get_secret_value(),
            "access_token": creds.access_token.get_secret_value(),
            "management_id": creds.management_id,
            "management_token": creds.management_token.get_secret_value(),
        }

    # -- for people --------------------------------------------------------
    def _repr_html_(self) -> str:
        """The project, its clock, and how many of each thing it holds."""
        state = self.state
        held: list[tuple[str, Sized]] = [
            ("campaigns", state.campaigns), ("promotion tiers", state.tiers), ("vouchers and codes", state.vouchers),
            ("customers", state.customers), ("segments", state.segments), ("loyalty programs", state.programs),
            ("loyalty cards", state.cards), ("rewards", state.rewards), ("incentives", state.incentives),
            ("webhooks", state.webhooks), ("publications", state.publications),
            ("redemptions (stacked)", state.redemptions), ("tracked events", state.events)]
        table = Table("what it holds", ("what", "how many"),
                      tuple((name, format_count(len(things))) for name, things in held if things))
        facts = [("project", f"{state.project.id} ({state.project.name})"), ("seed", str(self.seed)),
                 ("clock", format_instant(self.now)), ("currency", currency_of(self))]
        return Summary("Simulator", facts, (table,)).html()

    # -- frames ------------------------------------------------------------
    def transactions(self) -> pd.DataFrame:
        """Card transactions as a DataFrame (see docs/analysis.md for columns)."""
        from .analysis.state_frames import card_transactions_frame

        return card_transactions_frame(self)

    def webhook_deliveries(self) -> pd.DataFrame:
        """Every webhook delivery attempt as a DataFrame (docs/analysis.md)."""
        from .analysis.state_frames import deliveries_frame

        return deliveries_frame(self)
