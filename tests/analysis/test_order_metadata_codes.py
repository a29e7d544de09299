"""Per-order metadata as codes into distinct dicts: each order gets back exactly its own values."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab.analysis.order_fields import metadata_codes

values = st.one_of(st.none(), st.sampled_from(["app", "web", "store"]), st.integers(0, 3), st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3).flatmap(
    lambda k: st.integers(0, 40).flatmap(
        lambda n: st.tuples(st.just(n), st.lists(st.lists(values, min_size=n, max_size=n), min_size=k, max_size=k)))))
def test_every_order_reads_back_its_own_metadata(drawn: tuple[int, list[list[object]]]) -> None:
    n, columns = drawn
    given_columns = {f"key{c}": np.array(column, dtype=object) for c, column in enumerate(columns)}
    codes, sets = metadata_codes(given_columns, n)
    if not given_columns:
        assert codes is None and sets == ()
        return
    assert codes is not None and len(codes) == n
    assert len({tuple(sorted(d.items(), key=str)) for d in sets}) == len(sets)  # distinct combinations
    for i in range(n):
        expected = {key: column[i] for key, column in given_columns.items() if column[i] is not None}
        assert sets[int(codes[i])] == expected
