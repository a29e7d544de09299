"""A pull: read a project through the service's read endpoints, write it as a scenario.

The reading goes family by family (the catalogue, customers and their
segments), each list walked to its end (`walk`), each answer parsed as its
endpoint declares (`models.read_endpoints`), and the customers and codes of
a list longer than its pages reach read through an export instead
(`export_objects`: the same wire objects); each family's mapping turns the
wire objects into the scenario's sections and lists what it cannot hold.
The scenario is then written under a hidden name and loaded, as `promolab
validate` would, before anything is put in place: a pull never leaves a
scenario that does not load. The scenario and its report are written
together or not at all (`output_files`); the pages read are kept until then
in the state file that `--resume` reads.

The loyalty programs are read last (`loyalty.read_loyalty`): their members
must be pulled customers, their rewards' campaigns pulled campaigns. Nothing
of the target's credentials is written.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import yaml

if TYPE_CHECKING:
    import pandas as pd

from .. import models
from ..models import campaign_reads, promotion_reads
from ..models import read_endpoints as reads
from ..output_files import Writer, write_all
from ..shadow import Pace, Pacer, Target
from ..sim import ScenarioError, Simulator, format_instant
from .campaigns import campaigns_part, category_entry
from .catalogue import catalogue_part
from .customers import customers_part, merged_order
from .errors import PullError
from .export_objects import Exported
from .history import History, read_history
from .loyalty import Known, read_loyalty
from .project_facts import ProjectFacts, project_part
from .reader import Limits, Reader, Sent
from .rules import read_rules
from .state_file import StateFile, state_path
from .unexpressed import Unexpressed, write_report
from .walk import Window, walk

__all__ = ["PullOptions", "Pulled", "pull", "read_project", "report_path"]

#: A list longer than its 99 pages is read on from the creation instant of the last object read.
_BY_DATE = Window("created_at[after]", lambda obj: obj.created_at)

#: No pace of our own: as fast as the target answers, its rate-limit headers and 429s obeyed.
UNPACED = Pace(calls=1, per=0.0)


@dataclass(frozen=True, slots=True)
class PullOptions:
    """How a pull reads its target."""

    #: An even pace (`--pace`); the default only obeys the target's limits.
    pace: Pace = UNPACED
    limits: Limits = field(default_factory=Limits)
    #: Go on with the pages an interrupted pull of the same output kept.
    resume: bool = False
    progress: bool = False
    #: Also read the orders and redemptions made since this instant (`--history`).
    history_since: datetime | None = None
    #: What no read endpoint says: the project's id (its stacking rules are read with it), time zone, currency.
    project: ProjectFacts = field(default_factory=ProjectFacts)


@dataclass(frozen=True, slots=True)
class Pulled:
    """What a pull read: the scenario document, what it could not hold, and its cost."""

    document: dict[str, Any]
    unexpressed: list[Unexpressed]
    objects: int
    calls: int
    history: History | None = None


def report_path(out: Path) -> Path:
    """The report beside a pulled scenario: `<stem>.report.csv`."""
    return out.with_name(out.stem + ".report.csv")


def history_paths(out: Path) -> tuple[Path, Path]:
    """The history frames beside a pulled scenario: `<stem>.orders.parquet`, `<stem>.redemptions.parquet`."""
    return out.with_name(out.stem + ".orders.parquet"), out.with_name(out.stem + ".redemptions.parquet")


def _origin(url: str) -> str:
    """The target's address without what could be a credential (user info, query)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


@contextmanager
def _bar(enabled: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar counting objects read (tqdm: a widget in a notebook, text on a terminal)."""
    if not enabled:
        yield lambda read: None
        return
    import sys

    from tqdm.auto import tqdm

    bar = tqdm(unit="object", desc="pull", mininterval=0.25, leave=False, file=sys.stderr)
    try:
        yield bar.update
    finally:
        bar.close()


def _last_change(objects: list[Any]) -> datetime | None:
    """The latest creation or change among `objects`: the pulled simulator's "now"
    (the target's own clock is not a read endpoint's; docs/pull.md)."""
    instants = [value for obj in objects for value in (obj.created_at, getattr(obj, "updated_at", None))
                if value is not None]
    return max(instants, default=None)


def read_project(reader: Reader, tick: Callable[[int], None] = lambda read: None,
                 history_since: datetime | None = None, facts: ProjectFacts | None = None) -> Pulled:
    """The scenario document of the project `reader` reads (and its history
    since `history_since`, when given); `facts`: what no read endpoint says."""
    def counted(items: list[Any]) -> list[Any]:
        tick(len(items))
        return items

    exported = Exported(reader)  # the lists longer than their pages reach
    products = counted(walk(reader, reads.LIST_PRODUCTS))
    collections = counted(walk(reader, reads.LIST_PRODUCT_COLLECTIONS))
    customers = counted(walk(reader, reads.LIST_CUSTOMERS, window=_BY_DATE, beyond=exported.customers))
    members: dict[str, list[str]] = {}
    orders: list[list[str]] = []
    for customer in customers:
        listed = [segment.id for segment in walk(reader, reads.LIST_CUSTOMER_SEGMENTS, {"customer_id": customer.id})]
        for sid in listed:
            members.setdefault(sid, []).append(customer.id)
        orders.append(listed)
    segments = counted([reader.parsed(Sent(reads.GET_SEGMENT, reads.GET_SEGMENT.url_path(segment_id=sid)),
                                      models.Segment) for sid in merged_order(orders)])
    catalogue = catalogue_part(products, collections)
    people = customers_part(customers, segments, members)
    categories = counted(walk(reader, promotion_reads.LIST_CATEGORIES))
    campaigns = counted(walk(reader, campaign_reads.LIST_CAMPAIGNS))
    tiers, stacks = [], []
    for campaign in campaigns:
        if campaign.campaign_type == "PROMOTION":  # each campaign's own lists: its tiers in its order
            tiers += counted(walk(reader, promotion_reads.LIST_CAMPAIGN_PROMOTION_TIERS, {"campaign_id": campaign.id}))
            stacks += counted(walk(reader, promotion_reads.LIST_CAMPAIGN_PROMOTION_STACKS, {"campaign_id": campaign.id}))
    exported.know_campaigns(campaigns)
    vouchers = counted(walk(reader, campaign_reads.LIST_VOUCHERS, window=_BY_DATE, beyond=exported.vouchers))
    rules = read_rules(reader)
    promotions = campaigns_part(campaigns, tiers, stacks, vouchers, rules.terms)
    loyalty = read_loyalty(reader, counted, Known.of(people.customers, promotions.campaigns, catalogue.section))
    document: dict[str, Any] = {"version": 1, "description": f"Pulled from {_origin(reader.target.base_url)}"}
    project, unread = project_part(reader, facts or ProjectFacts())
    if project:
        document["project"] = project
    last = _last_change([*products, *(s for p in products for s in p.skus.data), *collections, *customers,
                         *categories, *campaigns, *tiers, *stacks, *vouchers, *loyalty.dated])
    if last is not None:
        document["clock"] = {"start": format_instant(last)}
    for key, value in (("catalogue", catalogue.section), ("customers", people.customers),
                       ("segments", people.segments), ("categories", [category_entry(c) for c in categories]),
                       ("campaigns", promotions.campaigns), *loyalty.sections):
        if value:
            document[key] = value
    objects = (len(products) + len(collections) + len(customers) + len(segments) + len(categories)
               + len(campaigns) + len(tiers) + len(stacks) + len(vouchers) + loyalty.objects)
    history = None
    if history_since is not None:
        history = read_history(reader, history_since, {c.id: c.source_id for c in customers})
        tick(len(history.redemptions) + history.orders["order_id"].nunique())
    unexpressed = unread + catalogue.unexpressed + people.unexpressed + promotions.unexpressed + rules.unexpressed
    unexpressed += loyalty.unexpressed + exported.unexpressed
    return Pulled(document, unexpressed, objects, reader.calls, history)


def _dump(document: dict[str, Any], path: Path) -> None:
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's when built with it: same text, faster
    with path.open("w", encoding="utf-8") as out:
        yaml.dump(document, out, Dumper=dumper, sort_keys=False, allow_unicode=True, width=120)


def _parquet(frame: pd.DataFrame, path: Path) -> None:
    frame.to_parquet(path, index=False)


#: Past this many customers (or a campaign's codes), they go to a Parquet table beside the scenario (docs/scenarios.md, "Long lists as tables").
TABLE_ROWS = 1_000


def _table(rows: list[dict[str, Any]], path: Path) -> None:
    """Rows as the scenario's table: a column per field, mappings as JSON text."""
    import pandas as pd

    columns = list(dict.fromkeys(key for row in rows for key in row))
    encoded = [{key: json.dumps(value, sort_keys=True) if isinstance(value, dict) else value
                for key, value in row.items()} for row in rows]
    pd.DataFrame(encoded, columns=columns).to_parquet(path, index=False)


def _tables(document: dict[str, Any], out: Path) -> tuple[dict[str, Any], dict[Path, Writer]]:
    """The document to write (long lists as table references) and the tables' writers: the customers,
    and each campaign's codes (`<stem>.codes-<n>.parquet`, n its position: ids need not be file names)."""
    writers: dict[Path, Writer] = {}
    written = dict(document)
    customers = document.get("customers", [])
    if len(customers) > TABLE_ROWS:
        name = f"{out.stem}.customers.parquet"
        written["customers"] = {"table": name}
        writers[out.with_name(name)] = partial(_table, customers)
    campaigns = []
    for n, campaign in enumerate(document.get("campaigns", [])):
        codes = campaign.get("vouchers", [])
        if len(codes) > TABLE_ROWS:
            name = f"{out.stem}.codes-{n}.parquet"
            campaign = {**campaign, "vouchers": {"table": name}}
            writers[out.with_name(name)] = partial(_table, codes)
        campaigns.append(campaign)
    if campaigns:
        written["campaigns"] = campaigns
    return written, writers


def _loaded(scenario: dict[Path, Writer], folder: Path, out: Path) -> dict[Path, Writer]:
    """The scenario's files written into `folder` and loaded from there, as `promolab validate` would
    load them (the YAML and its tables: a document of 100,000 codes is past the parsing limits
    inline, not with its long lists as tables), then writers that move each into place."""
    staged = {path: folder / path.name for path in scenario}
    for path, write in scenario.items():
        write(staged[path])
    try:
        Simulator.from_scenario(staged[out])
    except ScenarioError as exc:
        message = str(exc).replace(str(staged[out]), str(out))
        raise PullError(f"the pulled project does not load as a scenario: {message}") from None
    return {path: partial(_moved, staged[path]) for path in scenario}


def _moved(source: Path, path: Path) -> None:
    os.replace(source, path)


def pull(target: Target, out: Path, options: PullOptions = PullOptions()) -> Pulled:
    """Read `target` and write its scenario to `out` (YAML) and the report beside it.
    Raises `PullError` (nothing written; the pages read kept for `resume`) or
    `ValueError` for a state file that does not fit `options.resume`."""
    state = StateFile(state_path(out), resume=options.resume)
    reader = Reader(target, pacer=Pacer(options.pace), limits=options.limits, state=state)
    try:
        with _bar(options.progress) as tick:
            pulled = read_project(reader, tick, options.history_since, options.project)
        written, scenario = _tables(pulled.document, out)
        scenario[out] = partial(_dump, written)
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.") as folder:
            writers = _loaded(scenario, Path(folder), out)
            writers[report_path(out)] = partial(write_report, pulled.unexpressed)
            if pulled.history is not None:
                orders_path, redemptions_path = history_paths(out)
                writers[orders_path] = partial(_parquet, pulled.history.orders)
                writers[redemptions_path] = partial(_parquet, pulled.history.redemptions)
            write_all(writers)
    finally:
        reader.close()
        state.close()
    state.remove()
    return pulled
