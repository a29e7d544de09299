"""Error body: only code/key/message are always present."""

from __future__ import annotations

import json
from typing import Any

import pytest

from promolab.models import ErrorBody

from ._support import assert_invalid_at, round_trip


def test_unauthorized_body_is_exactly_the_interface_one() -> None:
    body = ErrorBody(code=401, message="Unauthorized", key="unauthorized")
    assert body.model_dump(mode="json") == {
        "code": 401,
        "message": "Unauthorized",
        "key": "unauthorized",
    }
    assert json.loads(body.model_dump_json()) == {
        "code": 401,
        "key": "unauthorized",
        "message": "Unauthorized",
    }


def test_unauthorized_body_with_request_id() -> None:
    body = ErrorBody(code=401, message="Unauthorized", key="unauthorized", request_id="v-1")
    assert body.model_dump(mode="json") == {
        "code": 401,
        "key": "unauthorized",
        "message": "Unauthorized",
        "request_id": "v-1",
    }


VALID = {
    "not found": {
        "code": 404,
        "key": "not_found",
        "message": "Resource not found",
        "details": "Cannot find incentive with id linc_1",
        "request_id": "v-1",
        "resource_id": "linc_1",
        "resource_type": "incentive",
    },
    "resource in use": {
        "code": 400,
        "key": "resource_in_use",
        "message": "Resource in use",
        "details": "Resource reward with id lrew_1 is in use by reward_assignments with ids [r_1]",
        "request_id": "v-2",
        "related_object_ids": ["rewa_1"],
        "related_object_type": "reward_assignment",
        "related_object_total": 1,
    },
    "locked": {
        "code": 423,
        "key": "insufficient_card_balance",
        "message": "Locked",
        "request_id": "v-3",
    },
    "custom message passes through": {
        "code": 400,
        "key": "k",
        "message": "m",
        "error": {"message": "custom"},
    },
}


@pytest.mark.parametrize("payload", VALID.values(), ids=VALID.keys())
def test_valid_errors_round_trip(payload: dict[str, Any]) -> None:
    assert round_trip(ErrorBody, payload) == payload


@pytest.mark.parametrize(
    ("payload", "loc"),
    [
        ({"key": "k", "message": "m"}, ("code",)),
        ({"code": 400, "message": "m"}, ("key",)),
        ({"code": 400, "key": "k"}, ("message",)),
        ({"code": 99, "key": "k", "message": "m"}, ("code",)),
        ({"code": 600, "key": "k", "message": "m"}, ("code",)),
        ({"code": 400.0, "key": "k", "message": "m"}, ("code",)),
        ({"code": 400, "key": "", "message": "m"}, ("key",)),
        (
            {"code": 400, "key": "k", "message": "m", "related_object_total": -1},
            ("related_object_total",),
        ),
        (
            {"code": 400, "key": "k", "message": "m", "related_object_ids": "rewa_1"},
            ("related_object_ids",),
        ),
    ],
    ids=[
        "code missing",
        "key missing",
        "message missing",
        "code 99",
        "code 600",
        "code float",
        "key empty",
        "total negative",
        "ids not a list",
    ],
)
def test_invalid_errors_name_the_field(payload: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(ErrorBody, payload, loc)
