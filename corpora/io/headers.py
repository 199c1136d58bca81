"""Is a line a header, which column names a user: the words of table headers, and layouts that hide a user column.

A data owner's table names its columns (``user_id,item``, ``Customer ID;Product``); read as
baskets, such a file would publish its header and its user column as terms. The readers ask this
module before they read: :func:`header_word` classifies one field (a user, item or other column
name), :func:`looks_like_header` a first line, :func:`long_layout_reason` a whole file that looks
like one (user, item) row per line, :func:`delimiter_hint` a delimiter that was likely meant, and
:func:`check_column_roles` an item column named like a user column (the two swapped).
:func:`user_value_terms` lists the items equal to a user-column value, for the identifier screen
(:mod:`corpora.io.identifiers`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from corpora.common.errors import InputError

__all__ = ["CANDIDATE_DELIMITERS", "check_column_roles", "delimiter_hint", "header_word", "long_layout_reason",
           "looks_like_header", "user_value_terms"]

_USER_WORDS = frozenset({
    "user", "users", "userid", "uid", "customer", "customerid", "client", "clientid", "member", "visitor",
    "session", "sessionid", "person", "patient", "patientid", "household", "account", "transaction",
    "transactionid", "tid", "txn", "order", "orderid", "basket", "basketid", "cart", "record", "recordid",
    "doc", "document", "docid", "receipt", "invoice", "owner",
    "email", "emails", "mail", "emailaddress", "mailaddress", "login", "username", "phone", "mobile",
    "telephone", "ip", "ipaddress", "ssn", "passport", "buyer", "shopper", "subscriber", "employee", "student",
    "guest", "author", "sender", "recipient", "device", "deviceid", "cookie", "cookieid", "contact",
})
_ITEM_WORDS = frozenset({
    "item", "items", "itemid", "product", "products", "productid", "sku", "article", "term", "terms",
    "query", "queries", "word", "words", "token", "code", "name", "diagnosis", "drug", "page", "url",
    "category", "description", "label",
})
_OTHER_WORDS = frozenset({
    "id", "key", "no", "number", "timestamp", "date", "time", "datetime", "quantity", "qty", "count",
    "price", "amount", "rating", "value", "score", "weight", "position", "rank",
})
_WORD_PARTS = re.compile(r"[_\-\s.]+")
CANDIDATE_DELIMITERS = (";", "\t", "|", ",")


def header_word(field: str) -> str | None:
    """``"user"``, ``"item"`` or ``"other"`` when ``field`` reads as a column name, else ``None``.

    Compared in lower case with ``_``, ``-``, ``.`` and spaces as word breaks: ``user_id`` is a
    user word, ``Product ID`` an item word, ``timestamp`` another header word.
    """
    text = field.strip().strip('"').lower()
    if not text:
        return None
    parts = [p for p in _WORD_PARTS.split(text) if p]
    joined = "".join(parts)
    for kind, words in (("user", _USER_WORDS), ("item", _ITEM_WORDS)):
        if joined in words or (parts and all(p in words or p in _OTHER_WORDS for p in parts)
                               and any(p in words for p in parts)):
            return kind
    if parts and all(p in _OTHER_WORDS for p in parts):
        return "other"
    return None


def looks_like_header(fields: Sequence[str], later_values: set[str] | None = None) -> bool:
    """Whether a first line of basket or kdd fields is a header such as ``user_id,item``.

    At least two fields, every one a column name (:func:`header_word`), one of them an item
    word, and none of them found again in ``later_values`` (the terms of the other lines).
    """
    cleaned = [f.strip() for f in fields if f.strip()]
    if len(cleaned) < 2:
        return False
    kinds = [header_word(f) for f in cleaned]
    if any(k is None for k in kinds) or "item" not in kinds:
        return False
    return not (later_values and any(f in later_values for f in cleaned))


def delimiter_hint(lines: Sequence[str], expected: str) -> str | None:
    """A delimiter other than ``expected`` that the lines hold, when they hold ``expected`` nowhere."""
    if any(expected in line for line in lines):
        return None
    for candidate in CANDIDATE_DELIMITERS:
        if candidate != expected and any(candidate in line for line in lines):
            return candidate
    return None


_PERSON_WORDS = frozenset({
    "user", "users", "userid", "uid", "customer", "customerid", "client", "clientid", "member", "visitor", "person",
    "patient", "patientid", "household", "account", "owner", "email", "emails", "mail", "emailaddress",
    "mailaddress", "login", "username", "phone", "mobile", "telephone", "ip", "ipaddress", "ssn", "passport",
    "buyer", "shopper", "subscriber", "employee", "student", "guest", "author", "sender", "recipient", "device",
    "deviceid", "cookie", "cookieid", "contact",
})
"""The user words that name a person (or their device or account), not a basket, order or document."""


def _user_column_name(field: str, person: bool = False) -> bool:
    """Whether a header field names a user, customer, e-mail or id column (``user_id``, ``customer_email``, ``id``).

    ``person=True`` asks for a column naming a person (``customer``, ``email``), not only a record
    key (``basket``, ``order``, ``transaction``): the values such a column holds identify people.
    """
    kind = header_word(field)
    parts = [p for p in _WORD_PARTS.split(field.strip().strip('"').lower()) if p]
    if kind == "user":
        return not person or "".join(parts) in _PERSON_WORDS or any(p in _PERSON_WORDS for p in parts)
    return kind == "other" and "id" in parts and not person


def long_layout_reason(rows: Sequence[Sequence[str]]) -> str | None:
    """Why the rows of a delimited file look like one (user, item) pair per row, or ``None``.

    Reading such a file as baskets (one record per line) publishes its user column as terms, so a
    file whose format was only guessed from its extension is refused when one of these holds
    (issue 21; ``rows`` are the stripped fields of the non-blank lines, in order):

    1. **A user column is named.** The first line has a field that names a user, customer,
       e-mail or id column (:func:`header_word`: ``user_id``, ``customer_email``, ``email``,
       ``Customer ID``, ``id``) and that field is no value of the next 200 lines.
    2. **Pairs keyed by a repeating first field.** At least two lines, every line holds exactly
       two fields, and some first field occurs on more than one line: a basket file of pairs
       whose first items repeat is possible, but so is a table of (user, item) rows, and only
       the owner can say which.
    3. **A constant-width table keyed by its first column.** At least two lines, every line
       holds the same number (3 or more) of fields, some first field repeats on consecutive
       lines, and no first-column value occurs in another column (``u1,flu,2024-01-02``).

    Baskets of varying length with items anywhere in a line trigger none of them.
    """
    rows = [list(r) for r in rows if r]
    if not rows:
        return None
    later = {value for row in rows[1:201] for value in row}
    for field in rows[0]:
        if field and field not in later and _user_column_name(field):
            return f"its first line names a user column ({field[:40]!r})"
    if len(rows) < 2:
        return None
    width = len(rows[0])
    if any(len(r) != width for r in rows):
        return None
    firsts = [r[0] for r in rows]
    if width == 2 and len(set(firsts)) < len(firsts):
        return "every line holds two fields and the first field repeats across lines"
    if width >= 3 and any(a == b for a, b in zip(firsts, firsts[1:], strict=False)):
        others = {value for row in rows for value in row[1:]}
        if not others.intersection(firsts):
            return (f"every line holds {width} fields and the first field repeats on consecutive lines without "
                    "occurring in another column")
    return None


def check_column_roles(user_name: str | None, item_name: str, source: str) -> None:
    """Refuse an item column named like a user column: its values would be published as terms.

    ``--user-column product --item-column customer_email`` (the two swapped) is the usual cause;
    the message says so when the user column is named like an item column.
    """
    if not _user_column_name(str(item_name), person=True):
        return
    swapped = user_name is not None and header_word(str(user_name)) == "item"
    hint = (f"; the user column {str(user_name)[:40]!r} is named like an item column: are --user-column and "
            "--item-column swapped?") if swapped else "; choose the column of the items with --item-column"
    raise InputError(f"{source}: the item column {str(item_name)[:40]!r} is named like a user column, and its "
                     f"values would be published as terms{hint}")


def user_value_terms(items: Sequence[str], users: Sequence[str]) -> list[str]:
    """The items that are also values of the user column (sorted): the identifier screen flags them."""
    return sorted(set(items).intersection(users))
