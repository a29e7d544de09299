"""Turn a scenario document into a fresh `State`, all or nothing.

Loading happens in three passes: parse (YAML/JSON syntax, within the limits
of `parsing`), validate the document against `schema.Scenario` (types,
ranges, unknown keys), then check every reference against what the document
defines (`references`, one table) and build the flat state while resolving
references and checking wire shapes (discounts, incentives, rewards) against
the wire models, and compiling every promotion tier with the pricing engine
(`campaigns._compile_tier`). Each pass raises `ScenarioError` naming the
file, the path and, for a file, the line (`positions`); the last two report
every problem they find at once, in the file's order (a user fixes a file in
one round, not one per error). The state is only handed over when all
passes succeeded, so nothing is ever half-loaded.

The build runs section by section: the project's categories (`campaigns`,
whose stacking types join the stacking rules), the catalogue (`catalogue`), customers
and segments, the event schema, campaigns (`campaigns`), loyalty
(`loyalty`), referrals, webhooks; what the sections share (the state being
built, error paths, refused entities, ids) is `builder.Builder`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ...models import ProjectStackingRules, StackingRules
from ..ids import IdGenerator
from ..records import Customer, Project, Segment, WebhookConfig
from ..state import State
from . import schema
from .campaigns import CampaignsBuilder
from .catalogue import CatalogueBuilder
from .issues import ScenarioError, ScenarioIssue, validation_issues
from .loyalty import LoyaltyBuilder
from .parsing import check_document, parse_text, read_text
from .positions import CheckedDocument, SourceDocument, in_file_order, locate_issues
from .references import dangling_references
from .tables import with_tables

__all__ = ["LoadedScenario", "load_scenario", "read_scenario"]


@dataclass(frozen=True, slots=True)
class LoadedScenario:
    state: State
    start: datetime | None
    seed: int | None
    document: dict[str, Any]


def read_scenario(
    source: str | Path | Mapping[str, Any], *, origin: str | None = None
) -> tuple[dict[str, Any], str]:
    """Parse a path (YAML or JSON) or take a mapping; return (document, origin).

    Either way the document is within the limits of `parsing` (size, depth,
    aliases, integers, no cycle, no duplicate key) or `ScenarioError` is
    raised; `origin` names a mapping that was read from a file."""
    if isinstance(source, Mapping):
        origin = origin or "<scenario>"
        if isinstance(source, SourceDocument):  # read from a file before: its lines are still known
            return SourceDocument(source, source.text), origin
        if isinstance(source, CheckedDocument):  # a mapping read (and checked) here before
            return CheckedDocument(source), origin
        check_document(source, origin)
        return CheckedDocument(source), origin
    path = Path(source)
    origin = origin or str(path)
    text = read_text(path, origin)
    document = parse_text(text, origin, json_format=path.suffix == ".json")
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise ScenarioError(origin, "", f"the document must be a mapping, not {type(document).__name__}")
    return SourceDocument(document, text), origin


def load_scenario(
    source: str | Path | Mapping[str, Any], *, ids: IdGenerator, now: datetime, origin: str | None = None
) -> LoadedScenario:
    """Load a path or an already parsed document; `origin` names it in errors
    (a document read by `read_scenario` keeps its file name this way)."""
    document, origin = read_scenario(source, origin=origin)
    document = with_tables(document, origin)
    try:
        spec = schema.Scenario.model_validate(document)
    except ValidationError as exc:
        issues = validation_issues(exc, model=schema.Scenario)
        raise ScenarioError.of(origin, in_file_order(document, locate_issues(document, issues))) from None
    dangling = dangling_references(document)
    start = spec.clock.start or now
    builder = _Builder(origin, ids, start, reported=dangling.ids)
    try:
        state = builder.build(spec)
    except ScenarioError as exc:
        build_issues: tuple[ScenarioIssue, ...] = exc.issues
    else:
        build_issues = ()
    if dangling.issues or build_issues:
        issues = locate_issues(document, [*dangling.issues, *build_issues])
        raise ScenarioError.of(origin, in_file_order(document, issues))
    return LoadedScenario(state=state, start=spec.clock.start, seed=spec.seed, document=dict(document))



class _Builder(CatalogueBuilder, CampaignsBuilder, LoyaltyBuilder):
    """Flattens a validated `Scenario` into a `State`, resolving references:
    the sections in build order, the top-level lists built here."""

    def build(self, spec: schema.Scenario) -> State:
        st = self.state
        st.project = Project(id=spec.project.id, name=spec.project.name, credentials=spec.project.credentials,
                             timezone=spec.project.timezone, week_start=spec.project.week_start)
        st.settings = spec.settings
        if spec.project.stacking_rules is not None:
            with self.entity("project.stacking_rules"):
                rules = spec.project.stacking_rules.applied_to(StackingRules())
                st.stacking_rules = ProjectStackingRules(
                    id=self.ids.next("stacking_rules"), created_at=self.now, **rules.settings()
                )
        self._categories(spec.categories)
        self._catalogue(spec.catalogue)
        self._customers(spec)
        for i, event in enumerate(spec.event_schema):
            with self.entity(f"event_schema[{i}]"):
                if event.name in st.event_schemas:
                    raise self.fail(f"event {event.name!r} is defined twice", "name")
                st.event_schemas[event.name] = event
        for i, campaign in enumerate(spec.campaigns):
            self._campaign(f"campaigns[{i}]", campaign)
        self._loyalty(spec.loyalty)
        for i, campaign in enumerate(spec.campaigns):
            if campaign.referral is not None:
                with self.entity(f"campaigns[{i}].referral"):
                    self._check_referral(campaign)
        for i, hook in enumerate(spec.webhooks):
            with self.entity(f"webhooks[{i}]"):
                if (hook.url is None) == (hook.receiver is None):
                    raise self.fail("give exactly one of url or receiver")
                hid = self.new_id("webhook", hook.id, st.webhooks)
                st.webhooks[hid] = WebhookConfig(
                    id=hid, project_id=st.project.id, url=hook.url, receiver=hook.receiver,
                    secret=hook.secret, events=hook.events, status=hook.status, created_at=self.now,
                )
        if self.issues:
            raise ScenarioError.of(self.origin, self.issues)
        return st

    def _customers(self, spec: schema.Scenario) -> None:
        st = self.state
        seen_sources: set[str] = set()
        for i, c in enumerate(spec.customers):
            with self.entity(f"customers[{i}]", "customer", c.id, c.source_id):
                if c.source_id is not None:
                    if c.source_id in seen_sources:
                        raise self.fail(f"duplicate source_id {c.source_id!r}", "source_id")
                    seen_sources.add(c.source_id)
                cid = self.new_id("customer", c.id, st.customers)
                st.customers[cid] = Customer(
                    id=cid, source_id=c.source_id, name=c.name, email=c.email,
                    metadata=c.metadata, created_at=self.now,
                )
                if c.source_id is not None:
                    self._customer_by_source[c.source_id] = cid
        for i, s in enumerate(spec.segments):
            with self.entity(f"segments[{i}]"):
                sid = self.new_id("segment", s.id, st.segments)
                members = [self.resolve("customer", st.customers, ref, f"customers[{k}]") for k, ref in enumerate(s.customers)]
                st.segments[sid] = Segment(id=sid, name=s.name, customers=members)
