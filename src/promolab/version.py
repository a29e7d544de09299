"""promolab's version, read from the installed package's metadata.

One source of truth, pyproject.toml's `version`: `promolab.__version__`,
`promolab --version` and the `info.version` of `/openapi.json` all read it
here. A module of its own so that the HTTP layer can name the version
without importing the package root (which imports every layer).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__: str = version("promolab")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
