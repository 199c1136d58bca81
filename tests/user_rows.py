"""A hypothesis strategy for a data owner's (user, item) rows with identifier-like user ids.

Shared by the tests that hold that no user id reaches a release or a printed line, whatever the
rows come from (a long CSV in tests/test_owner_safety.py, a database in tests/test_sql_sqlite.py).
"""

from __future__ import annotations

import string

from hypothesis import strategies as st

USER_ID = st.text(alphabet=string.ascii_letters + string.digits + "._-", min_size=5, max_size=12).filter(
    lambda s: any(c.isdigit() for c in s) and any(c.isalpha() for c in s))
"""A user id that looks like one: letters and digits, 5 to 12 characters."""
WORDS = ["milk", "bread", "tea", "jam", "eggs", "rice", "salt", "soap", "beer", "wine"]
"""The items."""


@st.composite
def user_item_rows(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, str]]]:
    """(the users, their (user, item) rows): 4 to 12 users with 1 to 4 items each, and now and then an
    item that is also a user id."""
    users = draw(st.lists(USER_ID, min_size=4, max_size=12, unique=True))
    rows: list[tuple[str, str]] = []
    for user in users:
        items = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True))
        if draw(st.integers(0, 9)) == 0:
            items.append(draw(st.sampled_from(users)))
        rows += [(user, item) for item in items]
    return users, rows
