"""The response fit: known truth recovered inside its intervals, and bad input refused.

Known truth: histories drawn from a known model (`synthetic_history`, 50
seeds); each true coefficient must lie inside the fit's 95 % interval in at
least 90 % of them. Then what is not fitted keeps its default, and each bad
frame is refused with a ValueError naming what is wrong.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from promolab.analysis.response import (
    COEFFICIENT_COLUMNS,
    ResponseModel,
    SyntheticSettings,
    fit_response,
    synthetic_history,
)

TRUTH = ResponseModel(lift=2.0, intercept=-1.0, depth_coef=8.0, distance_coef=5.0,
                      kind={"UNIT": -0.3, "PERCENT": 0.2}, segment={"gold": 0.4})
TRUE = {"intercept": -1.0, "depth_coef": 8.0, "distance_coef": 5.0, "kind[UNIT]": -0.3, "kind[PERCENT]": 0.2,
        "segment[gold]": 0.4, "lift": 2.0}


def test_the_true_coefficients_lie_inside_their_95_percent_intervals_in_90_percent_of_50_seeds() -> None:
    inside = dict.fromkeys(TRUE, 0)
    for seed in range(50):
        history = synthetic_history(TRUTH, seed)
        table = fit_response(history.offers, history.counts).coefficients.set_index("term")
        assert set(table.index) == set(TRUE)
        for term, value in TRUE.items():
            inside[term] += bool(table.at[term, "ci_low"] <= value <= table.at[term, "ci_high"])
    assert all(count >= 45 for count in inside.values()), inside


def test_the_fitted_model_is_the_table_and_reads_kinds_against_the_base() -> None:
    history = synthetic_history(TRUTH, 7)
    fitted = fit_response(history.offers, history.counts)
    table = fitted.coefficients
    assert list(table.columns) == list(COEFFICIENT_COLUMNS)
    estimate = dict(zip(table["term"], table["estimate"], strict=True))
    assert fitted.model.depth_coef == estimate["depth_coef"] and fitted.model.lift == estimate["lift"]
    assert dict(fitted.model.kind) == {"UNIT": estimate["kind[UNIT]"], "PERCENT": estimate["kind[PERCENT]"]}
    assert "AMOUNT" not in fitted.model.kind  # the base kind: the intercept holds it
    assert fitted.not_fitted == {} and fitted.n_offers == len(history.offers) and fitted.n_counts == 600
    assert (table["ci_low"] < table["estimate"]).all() and (table["estimate"] < table["ci_high"]).all()


def test_what_the_history_cannot_tell_keeps_the_default() -> None:
    """No counts: the lift is the default's; no order below a threshold: nor is distance."""
    history = synthetic_history(TRUTH, 3, SyntheticSettings(below=0.0, kinds=("PERCENT", "AMOUNT")))
    fitted = fit_response(history.offers)
    assert set(fitted.not_fitted) == {"lift", "distance_coef"}
    assert fitted.model.lift == ResponseModel().lift and fitted.model.distance_coef == ResponseModel().distance_coef
    assert "distance_coef" not in fitted.fitted and "lift" not in fitted.fitted
    assert fitted.model.kind["UNIT"] == ResponseModel().kind["UNIT"]  # never offered: the default's


def test_a_fit_that_says_deeper_lowers_the_response_is_reported_not_used() -> None:
    rng = np.random.default_rng(0)
    depth = rng.uniform(0.0, 0.4, 2_000)
    frame = pd.DataFrame({"depth": depth, "distance": 0.0, "kind": "PERCENT", "segment": "",
                          "redeemed": (rng.random(2_000) < 0.8 - depth).astype(int)})
    fitted = fit_response(frame)
    assert fitted.coefficients.set_index("term").at["depth_coef", "estimate"] < 0
    assert "depth_coef" in fitted.not_fitted and fitted.model.depth_coef == ResponseModel().depth_coef


def _offers() -> pd.DataFrame:
    return synthetic_history(TRUTH, 1, SyntheticSettings(n_offers=500)).offers


@pytest.mark.parametrize(("change", "message"), [
    (lambda f: f.drop(columns="kind"), "lacks column"),
    (lambda f: f.assign(redeemed=1), "'redeemed' does not vary"),
    (lambda f: f.assign(depth=0.1), "'depth' does not vary"),
    (lambda f: f.assign(redeemed=f["redeemed"] * 2), "0 or 1"),
    (lambda f: f.assign(depth=-f["depth"]), "'depth' must be finite numbers >= 0"),
    (lambda f: f.assign(depth="deep"), "'depth' must be numbers"),
    (lambda f: f.assign(distance=f["distance"] + 1.5), "shares from 0 to 1"),
    (lambda f: f.assign(kind="BOGO"), "'kind' must be among"),
    (lambda f: f.head(40), "too few"),
    (lambda f: f.assign(segment=np.where(f["kind"] == "UNIT", "gold", "")), "collinear"),
])
def test_bad_offers_frames_are_refused(change: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fit_response(change(_offers()))  # type: ignore[operator]  # the table's lambdas


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c.drop(columns="orders"), "lacks column"),
    (lambda c: c.assign(orders=c["orders"] + 0.5), "whole numbers"),
    (lambda c: c.assign(depth=0.0), "'depth' does not vary"),
    (lambda c: c.head(15), "too few"),
])
def test_bad_counts_frames_are_refused(change: object, message: str) -> None:
    history = synthetic_history(TRUTH, 1, SyntheticSettings(n_offers=500))
    with pytest.raises(ValueError, match=message):
        fit_response(history.offers, change(history.counts))  # type: ignore[operator]  # the table's lambdas


def test_a_frame_that_is_not_a_frame_is_refused() -> None:
    with pytest.raises(TypeError, match="DataFrame"):
        fit_response([1, 2, 3])  # type: ignore[arg-type,unused-ignore]  # what is being refused
