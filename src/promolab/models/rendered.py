"""`Rendered[M]`: an answer already in its wire JSON, typed by its model `M`.

The pricing operations (promotion validation, stacked validation,
qualifications, stacked redemption and its rollback) render their answers
straight to wire JSON, and that JSON is what is served. They do not build
the model on the way, for three reasons measured or found in this codebase
(docs/architecture.md, "Typed answers"):

- cost: validating the 44 kB answer of a 20-tier validation into
  `ValidationResponse` takes ~850 us, against ~160 us for the whole
  operation (`model_construct` of its 384 nested models is slower still,
  ~8 us each, and leaves nested parts as dicts);
- bytes: the service's key order is not one model order (a validation's
  discount is `type, effect, amount_off`, a publication's
  `type, amount_off, effect`); the renderers keep each endpoint's, a model
  would impose its declaration order;
- shapes: the answer is the engine's trusted output, served as rendered;
  whether the model reads it back is what the client's parse (and
  `model()`) checks.

So the operation returns `Rendered(models.X, wire)`: `bind` (sim/operation.py)
checks `X` against the endpoint's response model, the HTTP face serialises
`wire` once, and an in-process caller who wants the typed answer asks for
`model()` (validated then, exactly as the client parses the bytes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

__all__ = ["Rendered"]

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, slots=True, eq=False)
class Rendered(Generic[M]):
    """The wire JSON of one answer (the caller's own: fresh per call) and its model."""

    model_type: type[M]
    wire: dict[str, Any]

    def model(self) -> M:
        """The answer as its model, validated as the typed client validates the bytes."""
        return self.model_type.model_validate(self.wire)
