"""Base of every state record.

Records are the simulator's memory: plain pydantic models that serialise to
JSON, so a snapshot is `model_dump(mode="json")` and a restore is
`model_validate`, byte-identical both ways. They are NOT wire models: they keep
what the service knows (counters, secrets, due times) and the wire models are
rendered from them. `extra="forbid"` makes a typo in a scenario file an error
with its path instead of a silently ignored key.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SecretStr,
    SerializationInfo,
)

from ..clock import format_instant

__all__ = ["REDACTED", "Instant", "Metadata", "Money", "Points", "Record", "Secret"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False, strict=False)


#: Timestamps are stored as aware datetimes and written in the wire format.
#: A naive timestamp is refused (with its path) rather than guessed.
Instant = Annotated[AwareDatetime, PlainSerializer(format_instant, return_type=str, when_used="json")]
#: Integer minor units; floats are refused so no amount is ever fractional.
Money = Annotated[int, Field(ge=0, le=2**63 - 1, strict=True)]
Points = Annotated[int, Field(ge=0, le=2**63 - 1, strict=True)]
Metadata = dict[str, Any]


REDACTED = "**********"


def _dump_secret(value: SecretStr, info: SerializationInfo) -> str:
    """Secrets are written in clear only when the caller asks to `reveal`
    (snapshots); every other dump (state views, logs, errors) redacts them."""
    if info.context and info.context.get("reveal"):
        return value.get_secret_value()
    return REDACTED


Secret = Annotated[SecretStr, PlainSerializer(_dump_secret, return_type=str, when_used="always")]
