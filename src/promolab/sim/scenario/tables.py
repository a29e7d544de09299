"""Long lists of a scenario in Parquet files beside it.

A pulled project of 100,000 codes and 20,000 customers is too long for a
YAML file to stay readable (and past the parsing limits of `parsing`), so
two lists may be written as a table instead of inline:

    customers: {table: ours.customers.parquet}
    campaigns:
      - id: camp_welcome
        vouchers: {table: ours.camp_welcome.codes.parquet}

One row per entry, one column per field of the entry (`schema.CustomerSpec`,
`schema.VoucherSpec`); a null is a field left out; the fields that hold
mappings (`metadata`, `discount`, `gift`, `validation_rules`,
`applicable_to`) are JSON text. The rows then load exactly as the same
entries written inline would, refusals naming `customers[12345].email`.

A table is a file inside the scenario's folder (a relative path, no `..`):
a scenario served from a shared folder cannot make the simulator read
elsewhere. At most `MAX_TABLE_ROWS` rows and `MAX_TABLE_BYTES` bytes each.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from .issues import ScenarioError
from .positions import CheckedDocument, SourceDocument

__all__ = ["JSON_COLUMNS", "MAX_TABLE_BYTES", "MAX_TABLE_ROWS", "with_tables"]

MAX_TABLE_ROWS = 1_000_000
MAX_TABLE_BYTES = 512 * 2**20
#: The entries' fields that hold mappings: JSON text in a table.
JSON_COLUMNS = frozenset({"metadata", "discount", "gift", "validation_rules", "applicable_to"})


def _folder(origin: str) -> Path:
    """The folder a scenario's tables are read from: its file's (else the current one)."""
    return Path(origin).parent if not origin.startswith("<") else Path.cwd()


def _rows(reference: Mapping[str, Any], path: str, origin: str) -> list[dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if set(reference) != {"table"} or not isinstance(reference["table"], str):
        raise ScenarioError(origin, path, "a list given as a table is {table: FILE.parquet} and nothing else")
    name = reference["table"]
    relative = PurePosixPath(name.replace("\\", "/"))
    if relative.is_absolute() or ".." in relative.parts or not name.endswith(".parquet"):
        raise ScenarioError(origin, f"{path}.table",
                            f"{name!r}: a table is a .parquet file inside the scenario's folder (no absolute path, no ..)")
    file = _folder(origin) / relative
    try:
        if file.stat().st_size > MAX_TABLE_BYTES:
            raise ScenarioError(origin, f"{path}.table", f"{name}: more than {MAX_TABLE_BYTES:,} bytes")
        parquet = pq.ParquetFile(file)
        if parquet.metadata.num_rows > MAX_TABLE_ROWS:
            raise ScenarioError(origin, f"{path}.table", f"{name}: more than {MAX_TABLE_ROWS:,} rows")
        rows: list[dict[str, Any]] = parquet.read().to_pylist()
    except (OSError, pa.ArrowException) as exc:
        raise ScenarioError(origin, f"{path}.table", f"cannot read {name}: {exc}") from None
    for number, row in enumerate(rows):
        for column in [c for c, value in row.items() if value is None]:
            del row[column]
        for column in JSON_COLUMNS & row.keys():
            try:
                row[column] = json.loads(row[column]) if isinstance(row[column], str) else row[column]
            except ValueError:
                raise ScenarioError(origin, f"{path}[{number}].{column}",
                                    f"not JSON text (row {number} of {name})") from None
    return rows


def with_tables(document: dict[str, Any], origin: str) -> dict[str, Any]:
    """`document` with each list written as a table read in (the same kind of
    document: a file's keeps its text for error positions). Unchanged when
    it names no table."""
    changed: dict[str, Any] = {}
    customers = document.get("customers")
    if isinstance(customers, Mapping):
        changed["customers"] = _rows(customers, "customers", origin)
    campaigns = document.get("campaigns")
    if isinstance(campaigns, list) and any(isinstance(c, Mapping) and isinstance(c.get("vouchers"), Mapping)
                                           for c in campaigns):
        changed["campaigns"] = [
            {**c, "vouchers": _rows(c["vouchers"], f"campaigns[{n}].vouchers", origin)}
            if isinstance(c, Mapping) and isinstance(c.get("vouchers"), Mapping) else c
            for n, c in enumerate(campaigns)
        ]
    if not changed:
        return document
    merged = {**document, **changed}
    if isinstance(document, SourceDocument):
        return SourceDocument(merged, document.text)
    return CheckedDocument(merged) if isinstance(document, CheckedDocument) else merged
