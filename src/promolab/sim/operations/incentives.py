"""Reading incentives (endpoint 1)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ... import models
from ..refusals import InvalidPayload, NotFound
from ..render import render_incentive
from . import operation

if TYPE_CHECKING:
    from ..simulator import Simulator

INCENTIVE_ID = re.compile(r"^linc_[a-f0-9]+$")


@operation("get_incentive", write=False)
def get_incentive(sim: Simulator, *, incentive_id: str) -> models.Incentive:
    if not INCENTIVE_ID.fullmatch(incentive_id):  # `$` alone would accept a trailing newline
        raise InvalidPayload(
            f"Property .id should match pattern ^linc_[a-f0-9]+$ (got {incentive_id!r})",
            resource_id=incentive_id,
            resource_type="incentive",
        )
    record = sim.state.incentives.get(incentive_id)
    if record is None:
        raise NotFound("incentive", incentive_id)
    return render_incentive(record)
