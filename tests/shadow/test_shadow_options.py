"""`shadow(script, **options)`: a keyword that is not one of `ShadowOptions`,
or no `target`, is a TypeError naming it (and the nearest option) before
anything is read, sent or written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promolab.client._requests import ApiKeys
from promolab.shadow import Target, shadow

TARGET = Target("http://127.0.0.1:9", ApiKeys("app", "token"))

#: (the keywords given, the TypeError's message)
REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"target": TARGET, "allow_write": True},
     "shadow() unexpected keyword argument 'allow_write'; did you mean 'allow_writes'?"),
    ({"target": TARGET, "casette": "run.jsonl"},
     "shadow() unexpected keyword argument 'casette'; did you mean 'cassette'?"),
    ({"target": TARGET, "mask": ()}, "shadow() unexpected keyword argument 'mask'; did you mean 'masks'?"),
    ({"targt": TARGET}, "shadow() unexpected keyword argument 'targt'; did you mean 'target'?"),
    ({"cassette": "run.jsonl"}, "shadow() missing required keyword argument: 'target'"),
]


@pytest.mark.parametrize(("options", "message"), REFUSED, ids=[m.split("'")[1] for _, m in REFUSED])
def test_a_wrong_keyword_is_refused_before_anything_runs(
    options: dict[str, Any], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TypeError) as caught:
        shadow(tmp_path / "no-such-script.jsonl", **options)  # the script is not even read
    assert str(caught.value) == message
    assert list(tmp_path.iterdir()) == []  # no cassette begun
