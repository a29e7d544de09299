"""Reading incentives (endpoint 1)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ... import models
from ...models import endpoints
from ..operation import bind
from ..refusals import InvalidPayload, NotFound
from ..render import render_incentive

if TYPE_CHECKING:
    from ..simulator import Simulator

#: The id's pattern, as the endpoint declares it (and `/openapi.json` shows it).
_PATTERN = endpoints.GET_INCENTIVE.path_params[0].pattern or ""
INCENTIVE_ID = re.compile(_PATTERN)


def get_incentive(sim: Simulator, *, incentive_id: str) -> models.Incentive:
    if not INCENTIVE_ID.fullmatch(incentive_id):  # `$` alone would accept a trailing newline
        raise InvalidPayload(
            f"Property .id should match pattern {_PATTERN} (got {incentive_id!r})",
            resource_id=incentive_id,
            resource_type="incentive",
        )
    record = sim.state.incentives.get(incentive_id)
    if record is None:
        raise NotFound("incentive", incentive_id)
    return render_incentive(record)


GET_INCENTIVE = bind(endpoints.GET_INCENTIVE, get_incentive, write=False)
