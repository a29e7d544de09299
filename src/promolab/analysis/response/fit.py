"""Fitting a `ResponseModel` from history: coefficients with 95 % intervals.

Two frames, each plain and documented, so any history can be put in them
(`response_frame` builds the first from `Offers` and outcomes; a forecast
gives them through `won_offers`, a synthetic history through `synthetic`):

- **offers** (`OFFER_COLUMNS`): one row per order that was offered an
  incentive: `depth`, `distance`, `kind`, `segment` (as in `Offers`) and
  `redeemed` (0/1). The redemption part is a logit of `redeemed` on the
  depth, the kind and segment dummies (statsmodels `Logit`): `intercept`,
  `depth_coef`, `kind[K]`, `segment[S]`. The first kind of `KINDS` present
  is the base (0), and so is segment "" (else the first label in sorted
  order): the other labels are read relative to it, as the model adds
  them. When some rows below a threshold (`distance > 0`) redeemed, the
  factor `exp(-distance_coef * distance)` is fitted with the rest by
  maximum likelihood (started from the logit; intervals from the
  numerical Hessian); else `distance_coef` keeps its default and is
  reported not fitted.
- **counts** (`COUNT_COLUMNS`, optional): orders per `unit` (a segment,
  cohort or customer) and `period`, with the `depth` it was offered in
  that period: a Poisson GLM of `orders` on `depth` with one level per
  unit gives `lift`. Without it `lift` keeps its default.

A coefficient the model refuses (a negative depth or distance effect, a
negative lift: a deeper incentive would lower the response) is reported in
the table and left at its default in `FittedResponse.model`, with the
reason in `not_fitted`. Bad input raises ValueError naming the column.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import optimize, stats
from statsmodels.tools.numdiff import approx_fprime

from .model import ResponseModel
from .offers import KINDS, Offers

__all__ = ["COEFFICIENT_COLUMNS", "COUNT_COLUMNS", "OFFER_COLUMNS", "FittedResponse", "fit_response",
           "response_frame"]

OFFER_COLUMNS = ("depth", "distance", "kind", "segment", "redeemed")
COUNT_COLUMNS = ("unit", "period", "depth", "orders")
COEFFICIENT_COLUMNS = ("term", "estimate", "std_err", "ci_low", "ci_high", "p_value")
#: Fewer rows than this per coefficient fitted is too few to read intervals from.
_ROWS_PER_TERM = 10
_Z95 = float(stats.norm.ppf(0.975))


@dataclass(frozen=True)
class FittedResponse:
    """The fitted model, its coefficients (`COEFFICIENT_COLUMNS`, 95 %
    intervals), the rows each part read, and what was not fitted and why."""

    model: ResponseModel
    coefficients: pd.DataFrame
    n_offers: int
    n_counts: int
    not_fitted: dict[str, str] = field(default_factory=dict)

    @property
    def fitted(self) -> tuple[str, ...]:
        """The terms the history identified (the rows of `coefficients`)."""
        return tuple(self.coefficients["term"])


def response_frame(offers: Offers, redeemed: np.ndarray) -> pd.DataFrame:
    """The offers frame of the offered orders among `offers` (`redeemed`: per
    entry of `offers`, whether it redeemed)."""
    redeemed = np.asarray(redeemed, dtype=bool)
    if len(redeemed) != len(offers):
        raise ValueError(f"redeemed has {len(redeemed)} entries, offers has {len(offers)}")
    keep = offers.offered
    return pd.DataFrame({"depth": offers.depth[keep], "distance": offers.distance[keep],
                         "kind": offers.kind[keep].astype(str), "segment": offers.segment[keep].astype(str),
                         "redeemed": redeemed[keep].astype(np.int64)})


def _require(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"the {what} frame must be a DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"the {what} frame lacks column(s) {', '.join(missing)} (needs {', '.join(columns)})")


def _numbers(frame: pd.DataFrame, column: str, what: str) -> np.ndarray:
    try:
        values: np.ndarray = pd.to_numeric(frame[column], errors="raise").to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"the {what} frame's {column!r} must be numbers") from None
    if not np.isfinite(values).all() or (values < 0).any():
        raise ValueError(f"the {what} frame's {column!r} must be finite numbers >= 0")
    return values


def _varies(values: np.ndarray, column: str, what: str) -> None:
    if len(np.unique(values)) < 2:
        raise ValueError(f"the {what} frame's {column!r} does not vary: nothing to fit it from")


def _dummies(labels: np.ndarray, base: str, name: str) -> tuple[list[str], np.ndarray]:
    levels = [v for v in sorted(set(labels.tolist())) if v != base]
    return [f"{name}[{v}]" for v in levels], np.column_stack([labels == v for v in levels]).astype(np.float64) \
        if levels else np.zeros((len(labels), 0))


def _table(terms: list[str], estimate: np.ndarray, std_err: np.ndarray) -> pd.DataFrame:
    z = np.divide(estimate, std_err, out=np.full(len(estimate), np.inf), where=std_err > 0)
    return pd.DataFrame({"term": pd.array(terms, dtype="string"), "estimate": estimate, "std_err": std_err,
                         "ci_low": estimate - _Z95 * std_err, "ci_high": estimate + _Z95 * std_err,
                         "p_value": 2 * stats.norm.sf(np.abs(z))})


def _redemption_fit(frame: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """The redemption part's table, and whether distance was fitted."""
    _require(frame, OFFER_COLUMNS, "offers")
    depth = _numbers(frame, "depth", "offers")
    distance = _numbers(frame, "distance", "offers")
    if (distance > 1).any():
        raise ValueError("the offers frame's 'distance' must be shares from 0 to 1")
    redeemed = _numbers(frame, "redeemed", "offers")
    if not np.isin(redeemed, (0.0, 1.0)).all():
        raise ValueError("the offers frame's 'redeemed' must be 0 or 1")
    _varies(redeemed, "redeemed", "offers")
    _varies(depth, "depth", "offers")
    kind = frame["kind"].astype(str).to_numpy(dtype=object)
    unknown = sorted(set(kind.tolist()) - set(KINDS[:-1]))
    if unknown:
        raise ValueError(f"the offers frame's 'kind' must be among {KINDS[:-1]} (rows offered an incentive); "
                         f"got {unknown}")
    segment = frame["segment"].fillna("").astype(str).to_numpy(dtype=object)
    base_kind = next(k for k in KINDS if k in set(kind.tolist()))
    base_segment = "" if "" in set(segment.tolist()) else min(set(segment.tolist()))
    kind_terms, kind_x = _dummies(kind, base_kind, "kind")
    segment_terms, segment_x = _dummies(segment, base_segment, "segment")
    terms = ["intercept", "depth_coef", *kind_terms, *segment_terms]
    x = np.column_stack([np.ones(len(depth)), depth, kind_x, segment_x])
    if len(depth) < _ROWS_PER_TERM * (len(terms) + 1):
        raise ValueError(f"the offers frame has {len(depth)} rows: too few for {len(terms)} terms "
                         f"(at least {_ROWS_PER_TERM * (len(terms) + 1)})")
    if np.linalg.matrix_rank(x) < x.shape[1]:
        raise ValueError("the offers frame's depth, kinds and segments are collinear: a term cannot be told apart")
    logit = sm.Logit(redeemed, x).fit(disp=0)
    params, bse = np.asarray(logit.params), np.asarray(logit.bse)
    with_distance = bool(((distance > 0) & (redeemed == 1)).any())
    if not with_distance:
        return _table(terms, params, bse), False

    # einsum, not BLAS: matrices this thin gain nothing from BLAS threads, which on a
    # busy machine cost ten times the arithmetic (measured: 3.5 s against 30 s for 50 fits)
    def negative(theta: np.ndarray) -> float:
        log_p = np.minimum(-np.logaddexp(0.0, -np.einsum("ij,j->i", x, theta[:-1])) - theta[-1] * distance, -1e-12)
        return -float(np.sum(redeemed * log_p + (1 - redeemed) * np.log1p(-np.exp(log_p))))

    def gradient(theta: np.ndarray) -> np.ndarray:
        # d loglike / d log p = (y - p) / (1 - p); d log p / d eta = 1 - sigmoid(eta); d log p / d c = -distance
        eta = np.einsum("ij,j->i", x, theta[:-1])
        p = np.minimum(np.exp(-np.logaddexp(0.0, -eta) - theta[-1] * distance), 1 - 1e-12)
        slope = (redeemed - p) / (1 - p)
        grad: np.ndarray = -np.append(np.einsum("ij,i->j", x, slope / (1 + np.exp(eta))), -np.einsum("i,i->", slope, distance))
        return grad

    found = optimize.minimize(negative, np.append(params, 1.0), jac=gradient, method="BFGS")
    theta = np.asarray(found.x)
    hessian = approx_fprime(theta, gradient, centered=True)
    cov = np.linalg.pinv((hessian + hessian.T) / 2)
    return _table([*terms, "distance_coef"], theta, np.sqrt(np.maximum(np.diag(cov), 0.0))), True


def _lift_fit(counts: pd.DataFrame) -> pd.DataFrame:
    _require(counts, COUNT_COLUMNS, "counts")
    depth = _numbers(counts, "depth", "counts")
    orders = _numbers(counts, "orders", "counts")
    if not np.array_equal(orders, np.rint(orders)):
        raise ValueError("the counts frame's 'orders' must be whole numbers")
    _varies(depth, "depth", "counts")
    units = counts["unit"].astype(str).to_numpy(dtype=object)
    levels = sorted(set(units.tolist()))
    if len(counts) < _ROWS_PER_TERM * (len(levels) + 1):
        raise ValueError(f"the counts frame has {len(counts)} rows: too few for {len(levels)} units and the lift")
    x = np.column_stack([depth, *[(units == u).astype(np.float64) for u in levels]])
    glm = sm.GLM(orders, x, family=sm.families.Poisson()).fit()
    return _table(["lift"], np.asarray(glm.params)[:1], np.asarray(glm.bse)[:1])


def fit_response(offers: pd.DataFrame, counts: pd.DataFrame | None = None,
                 default: ResponseModel | None = None) -> FittedResponse:
    """Fit the redemption part from `offers` and, given `counts`, the lift
    (see the module's docstring); what is not fitted keeps `default`'s value
    (the documented `ResponseModel()` when None)."""
    base = default if default is not None else ResponseModel()
    table, with_distance = _redemption_fit(offers)
    not_fitted: dict[str, str] = {}
    if not with_distance:
        not_fitted["distance_coef"] = "no offered order below a threshold redeemed: kept the default"
    if counts is not None:
        table = pd.concat([table, _lift_fit(counts)], ignore_index=True)
    else:
        not_fitted["lift"] = "no counts frame: kept the default"
    value = dict(zip(table["term"].tolist(), table["estimate"].tolist(), strict=True))
    labels: dict[str, dict[str, float]] = {"kind": {}, "segment": {}}
    scalars: dict[str, float] = {}
    for term, estimate in value.items():
        if term.startswith(("kind[", "segment[")):
            table_name, label = term[:-1].split("[", 1)
            labels[table_name][label] = float(estimate)
        elif term in ("lift", "depth_coef", "distance_coef") and estimate < 0:
            not_fitted[term] = f"fitted {estimate:.3g} < 0 (a deeper incentive would lower the response): kept the default"
        else:
            scalars[term] = float(estimate)
    present = set(offers["kind"].astype(str))
    # the base kind reads 0 (the intercept holds it); a kind the history never offered keeps the default
    kinds = {**{k: v for k, v in base.kind.items() if k not in present}, **labels["kind"]}
    kinds = {k: v for k, v in kinds.items() if k != next(k for k in KINDS if k in present)}
    model = replace(base, kind=kinds, segment=labels["segment"],
                    intercept=scalars.get("intercept", base.intercept), depth_coef=scalars.get("depth_coef", base.depth_coef),
                    distance_coef=scalars.get("distance_coef", base.distance_coef), lift=scalars.get("lift", base.lift))
    return FittedResponse(model, table, len(offers), len(counts) if counts is not None else 0, not_fitted)
