"""A hypothesis strategy of orders whose numbers reach the 64-bit bound: prices,
quantities (as ints and as decimal strings) and amounts anywhere from small to
2^63-1, on a few products, some unknown to the catalogue (which then need a
price). Shared by the pricing and the HTTP bound tests, which check the same
invariant one layer apart."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

MAX = 2**63 - 1


def big_orders(
    big: st.SearchStrategy[int], products: Sequence[str], *, unknown: str, min_items: int
) -> st.SearchStrategy[dict[str, Any]]:
    """Orders of `min_items` to 3 lines over `products`; a line of `unknown`
    (a product the catalogue lacks) always carries a price."""

    @st.composite
    def orders(draw: st.DrawFn) -> dict[str, Any]:
        items = []
        for _ in range(draw(st.integers(min_items, 3))):
            ident = draw(st.sampled_from(list(products)))
            item: dict[str, Any] = {"product_id": ident, "quantity": draw(st.one_of(big, big.map(str)))}
            if ident == unknown or draw(st.booleans()):
                item["price"] = draw(big)
            if draw(st.integers(0, 3)) == 0:
                item["amount"] = draw(big)
            items.append(item)
        order: dict[str, Any] = {"items": items}
        if draw(st.booleans()):
            order["amount"] = draw(big)
        return order

    return orders()
