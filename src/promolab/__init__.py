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

The names are imported when first used (PEP 562 `__getattr__`), not by
`import promolab`: the `promolab` command imports this package first, and its
`--help` should not wait for pydantic, httpx and the simulator to load.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
    from .client import ApiError, AsyncClient, Client
    from .inprocess import Simulator
    from .sim import ScenarioError, with_changes

__all__ = ["ApiError", "AsyncClient", "Client", "ScenarioError", "Simulator", "__version__", "with_changes"]

#: Each public name -> the module it comes from.
_HOMES = {"ApiError": ".client", "AsyncClient": ".client", "Client": ".client",
          "Simulator": ".inprocess", "ScenarioError": ".sim", "with_changes": ".sim"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
