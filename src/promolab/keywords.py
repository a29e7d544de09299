"""Keyword options checked at run time as mypy checks them at a call.

The public entry points that take many options (`Client(url, **options)`,
`sweep(sim, orders, **options)`, `shadow(script, **options)`) take them as a
`TypedDict` unpacked into `**options`, which keeps each function to a few
parameters and every caller's keywords checked by mypy. A caller mypy does
not see (a notebook, a script) would otherwise have a misspelt keyword
dropped without a word (`progres=False` leaving the bar on): this module
refuses it, naming the nearest option, in one place for all of them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["check_keywords"]


def check_keywords(options: Mapping[str, Any], known: Iterable[str], *, where: str = "",
                   required: Iterable[str] = ()) -> None:
    """TypeError for the first keyword of `options` not in `known` (with the
    nearest known one, or the list of them) or the first of `required` that
    is missing. `where` prefixes the message (`"sweep() "`), as Python names
    the function in its own TypeErrors."""
    names = sorted(known)
    unknown = sorted(set(options) - set(names))
    if unknown:
        near = difflib.get_close_matches(unknown[0], names, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else f"; it takes {', '.join(names)}"
        raise TypeError(f"{where}unexpected keyword argument {unknown[0]!r}{hint}")
    missing = [name for name in required if name not in options]
    if missing:
        raise TypeError(f"{where}missing required keyword argument{'s' if len(missing) > 1 else ''}: "
                        f"{', '.join(map(repr, missing))}")
