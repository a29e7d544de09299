"""Operations of the simulator, one module per concept.

Each operation is a function registered under a name with `@operation`.
The name is what the journal records and what a replay line says, so the
registry is the single list of things that can happen to a simulator.
Write operations are journaled; reads are not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["REGISTRY", "Operation", "load_all", "operation"]


@dataclass(frozen=True, slots=True)
class Operation:
    name: str
    func: Callable[..., Any]
    write: bool


#: name -> Operation. A code table (like a URL map), filled at import time.
REGISTRY: dict[str, Operation] = {}


def operation(name: str, *, write: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        if name in REGISTRY:
            raise RuntimeError(f"operation {name!r} registered twice")
        REGISTRY[name] = Operation(name, func, write)
        return func

    return register


def load_all() -> None:
    """Import every operation module so the registry is complete."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
