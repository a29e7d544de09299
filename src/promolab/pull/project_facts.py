"""What a pull cannot read of the project itself, and its stacking rules.

No read endpoint says a project's id, time zone or currency; the time zone
decides which day, week and month a budget counts an order in, so a pull
takes them from the caller (`--project`, `--timezone`, `--currency`) and
the scenario says them. With the id, and the management keys, the project's
stacking rules are read (the management API's list, which holds the rules
in force: the project's object or the service's defaults) and written as
the scenario's `project.stacking_rules`, only the settings that differ from
the defaults. Without the id they are not read, and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .. import models
from ..display import is_currency_code
from ..models.endpoints import LIST_STACKING_RULES
from .reader import Reader, Sent
from .unexpressed import Unexpressed

__all__ = ["ProjectFacts", "project_part"]

_DEFAULTS = models.StackingRules().model_dump(mode="json")


@dataclass(frozen=True, slots=True)
class ProjectFacts:
    """The project's id, time zone and currency, as the caller gives them (None: not given)."""

    id: str | None = None
    timezone: str | None = None
    currency: str | None = None

    def __post_init__(self) -> None:
        """Refused before anything is read: a pull of an hour should not fail at its end on a typo."""
        if self.id is not None and not (0 < len(self.id) <= 100 and self.id.isprintable()):
            raise ValueError(f"--project: {self.id!r} is not a project id")
        if self.timezone is not None:
            try:
                ZoneInfo(self.timezone)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"--timezone: {self.timezone!r} is not an IANA time zone (Europe/Berlin)") from None
        if self.currency is not None and not is_currency_code(self.currency):
            raise ValueError(f"--currency: {self.currency!r} is not an ISO 4217 code (USD, EUR)")


def _stacking_rules(reader: Reader, project_id: str) -> dict[str, Any]:
    sent = Sent(LIST_STACKING_RULES, LIST_STACKING_RULES.url_path(project_id=project_id))
    (rules,) = reader.parsed(sent, models.StackingRulesList).data
    values = models.StackingRules.model_validate(rules.model_dump(include=set(models.StackingRules.model_fields)))
    settings = values.model_dump(mode="json")
    return {key: value for key, value in settings.items() if value != _DEFAULTS.get(key)}


def project_part(reader: Reader, facts: ProjectFacts) -> tuple[dict[str, Any], list[Unexpressed]]:
    """The scenario's `project` section (empty: nothing to say) and what it could not hold."""
    section: dict[str, Any] = {key: value for key, value in
                               (("id", facts.id), ("currency", facts.currency), ("timezone", facts.timezone))
                               if value is not None}
    out: list[Unexpressed] = []
    if facts.id is None:
        out.append(Unexpressed("project", "", "stacking_rules",
                               "not read: the management API needs the project's id (--project)"))
    else:
        changed = _stacking_rules(reader, facts.id)
        if changed:
            section["stacking_rules"] = changed
    return section, out
