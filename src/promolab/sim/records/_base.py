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

    def model_post_init(self, context: Any, /) -> None:
        """Every record of a class shares one set of every field name as its
        "fields set". pydantic gives each instance a set of the fields its
        constructor was given: ~730 bytes for a voucher, more than the
        voucher's values, per code of a 100,000-code project
        (`benchmarks/bench_scenario_load.py`). Nothing reads it (no record is
        dumped with `exclude_unset`; a restored record had every field set
        anyway), and sharing a set that already holds every name is safe:
        the one thing pydantic does to it, adding the name of a field
        assigned, changes nothing."""
        every = _EVERY_FIELD.get(type(self))
        if every is None:
            every = _EVERY_FIELD[type(self)] = set(type(self).model_fields)
        object.__setattr__(self, "__pydantic_fields_set__", every)


#: Each record class's shared "fields set" (`Record.model_post_init`).
_EVERY_FIELD: dict[type[Record], set[str]] = {}


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
