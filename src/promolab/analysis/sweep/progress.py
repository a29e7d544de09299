"""The sweep's progress bar (tqdm.auto: a widget in a notebook, text elsewhere).

One module for both execution strategies, so the pandas path (`api`) and the
Dask path (`dask`) show the same bar without importing each other.
"""

from __future__ import annotations

from typing import Any

__all__ = ["progress_bar"]


def progress_bar(total: int, enabled: bool, desc: str, unit: str = "order") -> Any:
    """A bar of `total` units; a disabled one (`enabled` False) counts silently."""
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=unit, unit_scale=True, desc=desc, disable=not enabled, leave=False)
