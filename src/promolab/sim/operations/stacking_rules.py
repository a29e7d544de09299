"""Managing the project's stacking rules (management API, beyond the interface).

A project has at most one stacking-rules object. Until one is created the
service's defaults apply (`models.StackingRules()`, which the list answers as
its one item, without an id); creating one when it
exists is 409 (update it instead); an update changes the fields sent (an
array sent replaces the stored one); deleting it brings the defaults back.
Every write is checked as a whole (limits nested, category lists disjoint)
before anything is stored, so a refused request changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ... import models
from ...models import endpoints
from ..operation import bind
from ..refusals import InvalidPayload, NotFound, SimError
from ..request_parsing import describe_validation_error, parse

if TYPE_CHECKING:
    from ..simulator import Simulator


def stacking_rules_in_force(sim: Simulator) -> models.StackingRules:
    """The rules stacked requests follow: the project's, or the defaults."""
    return sim.state.stacking_rules or models.StackingRules()


def _check_project(sim: Simulator, project_id: str) -> None:
    if project_id != sim.state.project.id:
        raise NotFound("project", project_id)


def _stored(sim: Simulator, project_id: str, stacking_rules_id: str) -> models.ProjectStackingRules:
    _check_project(sim, project_id)
    rules = sim.state.stacking_rules
    if rules is None or rules.id != stacking_rules_id:
        raise NotFound("stacking_rules", stacking_rules_id)
    return rules


def _changed(request: Any, base: models.StackingRules) -> dict[str, Any]:
    """The settings `request` asks for on top of `base`, checked as a whole."""
    change = parse(models.StackingRulesChange, request)
    try:
        return change.applied_to(base).settings()
    except ValidationError as exc:
        raise InvalidPayload(describe_validation_error(exc)) from None


def create_stacking_rules(sim: Simulator, *, project_id: str, request: Any) -> models.ProjectStackingRules:
    _check_project(sim, project_id)
    existing = sim.state.stacking_rules
    settings = _changed(request, models.StackingRules())
    if existing is not None:
        raise SimError(
            f"Stacking rules {existing.id} already exist for project {project_id}; update them instead",
            key="duplicate_found", message="Duplicate found", status=409,
            resource_id=existing.id, resource_type="stacking_rules",
        )
    rules = models.ProjectStackingRules(id=sim.ids.next("stacking_rules"), created_at=sim.now, **settings)
    sim.state.stacking_rules = rules
    return rules


def list_stacking_rules(sim: Simulator, *, project_id: str) -> models.StackingRulesList:
    """Always one item: the project's object, or the defaults (no id) while it has none."""
    _check_project(sim, project_id)
    return models.StackingRulesList.of([stacking_rules_in_force(sim)])


def get_stacking_rules(sim: Simulator, *, project_id: str, stacking_rules_id: str) -> models.ProjectStackingRules:
    return _stored(sim, project_id, stacking_rules_id)


def update_stacking_rules(
    sim: Simulator, *, project_id: str, stacking_rules_id: str, request: Any
) -> models.ProjectStackingRules:
    stored = _stored(sim, project_id, stacking_rules_id)
    settings = _changed(request, stored)
    rules = models.ProjectStackingRules(
        id=stored.id, created_at=stored.created_at, updated_at=sim.now, **settings
    )
    sim.state.stacking_rules = rules
    return rules


def delete_stacking_rules(sim: Simulator, *, project_id: str, stacking_rules_id: str) -> None:
    _stored(sim, project_id, stacking_rules_id)
    sim.state.stacking_rules = None


CREATE_STACKING_RULES = bind(endpoints.CREATE_STACKING_RULES, create_stacking_rules, write=True)
LIST_STACKING_RULES = bind(endpoints.LIST_STACKING_RULES, list_stacking_rules, write=False)
GET_STACKING_RULES = bind(endpoints.GET_STACKING_RULES, get_stacking_rules, write=False)
UPDATE_STACKING_RULES = bind(endpoints.UPDATE_STACKING_RULES, update_stacking_rules, write=True)
DELETE_STACKING_RULES = bind(endpoints.DELETE_STACKING_RULES, delete_stacking_rules, write=True)
