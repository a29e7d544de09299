"""Publication records -> the Publication wire object."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import models
from ..fast_validate import validated
from ..records import Publication
from .customers import customer_body
from .vouchers import first_category, render_voucher, wire_instant

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["render_publication"]


def render_publication(sim: Simulator, record: Publication) -> models.Publication:
    """The publication with its customer and the voucher as they are now
    (`publish.count` and `holder_id` reflect every publication so far).
    Every answer is built afresh: a caller may change the models it got."""
    st = sim.state
    voucher = st.vouchers[record.voucher_id]
    campaign = st.campaigns.get(voucher.campaign_id) if voucher.campaign_id is not None else None
    return validated(
        models.Publication,
        {
            "id": record.id,
            "object": "publication",
            "created_at": wire_instant(record.created_at),
            "customer_id": record.customer_id,
            "tracking_id": record.tracking_id,
            "metadata": record.metadata,
            "channel": record.channel,
            "source_id": record.source_id,
            "result": "SUCCESS",
            "customer": customer_body(st.customers[record.customer_id]),
            "voucher": render_voucher(voucher, campaign, seed=sim.seed, category=first_category(st, campaign)),
            "vouchers_id": [voucher.id],
        }
    )
