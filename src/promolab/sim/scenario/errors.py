"""The one error a scenario can raise: where (file, path) and what."""

from __future__ import annotations

__all__ = ["ScenarioError"]


class ScenarioError(ValueError):
    """A scenario was refused. Nothing of it was loaded.

    The message reads `<file>: <path>: <problem>` so that a user can jump to
    the line; `.path` is the dotted path inside the document
    (`campaigns[0].tiers[1].discount.amount_off`).
    """

    def __init__(self, origin: str, path: str, problem: str) -> None:
        self.origin = origin
        self.path = path
        self.problem = problem
        where = f"{origin}: {path}" if path else origin
        super().__init__(f"{where}: {problem}")


def format_loc(loc: tuple[int | str, ...]) -> str:
    """`("campaigns", 0, "tiers", 1, "name")` -> `campaigns[0].tiers[1].name`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out
