"""The project: its credentials and the simulator's behaviour switches."""

from __future__ import annotations

from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, Field, SecretStr

from ._base import Record, Secret

__all__ = ["Credentials", "Project", "RateLimit", "Settings", "TimeZoneName", "WeekStart"]


class Credentials(Record):
    """One set per interface of the Authentication table.

    SecretStr keeps tokens out of reprs and logs; they are written in clear
    only into snapshots (which must restore a working project).
    """

    app_id: str = "promolab-app"
    app_token: Secret = SecretStr("promolab-app-token")
    access_token: Secret = SecretStr("promolab-access-token")
    management_id: str = "promolab-management"
    management_token: Secret = SecretStr("promolab-management-token")


class RateLimit(Record):
    """Optional limiter mimicking the real service's headers (docs/interface.md)."""

    requests: int = Field(gt=0)
    per_seconds: int = Field(default=60, gt=0)


class Settings(Record):
    #: Seconds between a reward purchase and its asynchronous processing
    #: (at most ten years, the longest one clock advance: any more is no
    #: delay a test waits for, and could not be added to a late clock).
    purchase_delay_seconds: int = Field(default=2, ge=0, le=10 * 365 * 24 * 3600)
    #: An event missing from the event schema: refuse it (400) or accept it
    #: without effects (the real service leaves both open).
    undefined_events: Literal["reject", "accept"] = "reject"
    #: How long a webhook receiver may take before the attempt counts as failed.
    webhook_timeout_seconds: float = Field(default=10.0, gt=0)
    #: Largest request body the HTTP face accepts, in bytes.
    max_body_bytes: int = Field(default=1_048_576, gt=0)
    rate_limit: RateLimit | None = None


def _known_zone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r} (an IANA name, e.g. Europe/Berlin)") from None
    return name


#: An IANA time zone name (`Europe/Berlin`), checked against the zone database.
TimeZoneName = Annotated[str, AfterValidator(_known_zone)]
WeekStart = Literal["MONDAY", "SATURDAY", "SUNDAY"]


class Project(Record):
    id: str = "proj_promolab"
    name: str = "promolab project"
    credentials: Credentials = Field(default_factory=Credentials)
    #: The project's time zone and first day of the week: the calendar days,
    #: weeks and months of budget limits (`redemption.count.daily`, …).
    #: Left out of dumps at their defaults (a dump from before they existed
    #: reads the same).
    timezone: TimeZoneName = Field(default="UTC", exclude_if=lambda v: v == "UTC")
    week_start: WeekStart = Field(
        default="MONDAY", exclude_if=lambda v: v == "MONDAY"
    )
