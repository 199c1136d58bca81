"""Terms that look like direct identifiers, screened before anything is published.

Disassociation hides *associations*; it publishes every term it is given (a rare term goes to a
term chunk, in the clear). So a term that names a person (an e-mail address, a phone number, a
customer number, the user id of the file's own user column) is published as it is, whatever k
and m say. Terrovitis2012 section 2 assumes such identifiers were removed before ("we assume that
the data owner has removed the identifiers"); this module is the check that they were.

:func:`identifier_kind` says which pattern a term matches, :func:`screen_terms` screens a
vocabulary (the values of a declared user column included) and :func:`mask` shows a flagged term
without revealing it. The anonymizer refuses a dataset with flagged terms unless the owner allows
them by name (``--allow-identifiers``), and ``python -m attacks audit`` fails a release that
holds one.

The patterns (each a named kind; tried in the order of :data:`IDENTIFIER_KINDS`, the first that
matches wins, so ``https://ann:pw@host`` is a URL naming a user and a UUID is a hex id, not a phone):

``url-with-user``
    A URL or path that names an account: credentials before a host (``https://ann:pw@host``),
    a ``~user`` path, a home directory (``/home/ann``, ``/Users/ann``, ``C:\\Users\\ann``), or a
    query parameter ``user=``, ``uid=``, ``userid=``, ``username=``, ``login=``, ``email=``,
    ``account=``, ``customer=``, ``session=``, ``sid=``. A plain URL (``www.example.com``, a
    query log's clicked site) is not an identifier and is not flagged.
``e-mail``
    ``local@domain.tld``: a ``@`` between a local part and a dotted domain ending in 2+ letters.
``ip-address``
    An IPv4 address (four numbers of at most 255 joined by dots) or an IPv6 address (checked with
    :mod:`ipaddress`).
``phone``
    9 to 15 digits written with phone punctuation (``+``, spaces, ``-``, ``.``, ``(``, ``)``)
    and at least one such separator, e.g. ``+44 20 7946 0958``, ``(555) 123-4567``; a date
    (``2024-01-02``, ``02/01/2024``) is not a phone number.
``numeric-id``
    A run of 9 or more digits (a customer number, an account, a national id): the item ids of
    the transaction datasets people publish have at most 6 digits (kosarak: 5; BMS-POS and
    BMS-WebView: at most 6).
``hex-id``
    A UUID, or 12 or more hexadecimal characters with at least one digit and one letter (a hash,
    a device or session id); words made only of the letters a-f (``facade``) are not flagged.
``user-id``
    A value of the file's declared user column (``--user-column``) that also occurs as an item:
    the user column never reaches the release, so such a term is the only way it could.

The false-positive rate measured on the shipped datasets and text corpora is in docs/corpora.md
("Never guessing where a guess publishes identifiers"): 0 for kosarak, the supermarket baskets
and the text sources.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["IDENTIFIER_KINDS", "USER_TERMS_KEY", "IdentifierScreen", "identifier_kind", "mask", "refuse_identifiers",
           "screen_dataset", "screen_terms"]

IDENTIFIER_KINDS: tuple[str, ...] = ("url-with-user", "e-mail", "ip-address", "hex-id", "phone", "numeric-id",
                                     "user-id")
"""Every kind :func:`identifier_kind` and :func:`screen_terms` report, in the order they are tried."""

USER_TERMS_KEY = "user_column_terms"
"""Dataset metadata key of the items equal to a value of the user column (terms already in the dataset:
the long, parquet and DataFrame readers set it; :func:`screen_dataset` flags them as ``user-id``)."""

_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
_URL_USER = re.compile(
    r"[A-Za-z][A-Za-z0-9+.\-]*://[^/\s@]+@"                      # credentials before the host
    r"|(?:^|/)~[A-Za-z0-9._\-]+"                                 # ~user
    r"|(?:^|[/\\])(?:home|Users|users)[/\\][^/\\\s]+"             # home directories
    r"|[?&;](?:user|uid|userid|user_id|username|login|email|account|customer|session|sid)=[^&\s]",
    re.IGNORECASE)
_IPV4 = re.compile(r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.])")
_IPV6_CANDIDATE = re.compile(r"[0-9A-Fa-f:]*:[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*")
_PHONE = re.compile(r"\+?\(?\d[\d ()./\-]{6,}\d")
_DATE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}")
_LONG_NUMBER = re.compile(r"(?<!\d)\d{9,}(?!\d)")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9A-Fa-f]{12,}(?![0-9A-Za-z])")
_HINT = re.compile(r"[@:/\\~=]|\d")
_SHOWN = 3


def _phone(term: str) -> bool:
    for match in _PHONE.finditer(term):
        text = match.group()
        digits = sum(c.isdigit() for c in text)
        if 9 <= digits <= 15 and (text.startswith("+") or any(c in text for c in " ()./-")) \
                and not _DATE.search(text):
            return True
    return False


def _ipv6(term: str) -> bool:
    for match in _IPV6_CANDIDATE.finditer(term):
        try:
            if isinstance(ipaddress.ip_address(match.group()), ipaddress.IPv6Address):
                return True
        except ValueError:
            continue
    return False


def _hex(term: str) -> bool:
    if _UUID.search(term):
        return True
    for match in _HEX.finditer(term):
        text = match.group()
        if any(c.isdigit() for c in text) and any(c.isalpha() for c in text):
            return True
    return False


def identifier_kind(term: str) -> str | None:
    """The kind of direct identifier ``term`` looks like (module doc), or ``None``."""
    if not _HINT.search(term):
        return None  # every pattern needs a digit or one of @ : / \\ ~ =
    if _URL_USER.search(term):
        return "url-with-user"
    if _EMAIL.search(term):
        return "e-mail"
    if _IPV4.search(term) or (":" in term and _ipv6(term)):
        return "ip-address"
    if _UUID.search(term):
        return "hex-id"
    if _phone(term):
        return "phone"
    if _LONG_NUMBER.search(term):
        return "numeric-id"
    if _hex(term):
        return "hex-id"
    return None


def mask(term: str) -> str:
    """``term`` with every letter and digit but the first replaced by ``*`` (punctuation kept).

    ``ann.lee@example.com`` shows as ``a**.***@*******.***``: enough to recognise the shape in an
    error line or a report, not enough to recover the identifier. At most 40 characters are shown.
    """
    out: list[str] = []
    shown = False
    for c in term[:40]:
        if c.isalnum():
            out.append(c if not shown else "*")
            shown = True
        else:
            out.append(c)
    return "".join(out) + ("..." if len(term) > 40 else "")


@dataclass(frozen=True)
class IdentifierScreen:
    """What :func:`screen_terms` found: ``count`` flagged terms, by kind, with masked examples.

    ``terms`` holds the flagged terms themselves for the caller that must act on them (never
    print it: use ``examples``, which are masked).
    """

    checked: int
    terms: tuple[str, ...] = ()
    kinds: dict[str, int] = field(default_factory=dict)
    examples: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.terms)

    @property
    def clean(self) -> bool:
        return not self.terms

    def describe(self) -> str:
        """``3 terms look like direct identifiers (e-mail 2, phone 1; e.g. 'a**@***.***')``."""
        kinds = ", ".join(f"{kind} {n}" for kind, n in self.kinds.items())
        examples = ", ".join(repr(e) for e in self.examples)
        noun = "term looks" if self.count == 1 else "terms look"
        return f"{self.count} of {self.checked} distinct {noun} like direct identifiers ({kinds}; e.g. {examples})"

    def to_dict(self) -> dict[str, object]:
        """The JSON-ready summary (masked examples only, never the terms)."""
        return {"checked": self.checked, "count": self.count, "kinds": dict(self.kinds),
                "examples": list(self.examples)}


def screen_terms(terms: Iterable[str], user_values: Collection[str] = ()) -> IdentifierScreen:
    """Screen distinct ``terms`` for direct identifiers; ``user_values``: terms equal to a user-column value.

    Returns an :class:`IdentifierScreen`; the flagged terms are sorted, kinds counted in the order
    of :data:`IDENTIFIER_KINDS`, and up to three examples masked (:func:`mask`).
    """
    distinct = sorted(set(terms))
    users = set(user_values)
    flagged: list[tuple[str, str]] = []
    for term in distinct:
        kind = identifier_kind(term)
        if kind is None and term in users:
            kind = "user-id"
        if kind is not None:
            flagged.append((term, kind))
    counts = Counter(kind for _, kind in flagged)
    kinds = {kind: counts[kind] for kind in IDENTIFIER_KINDS if counts[kind]}
    return IdentifierScreen(checked=len(distinct), terms=tuple(t for t, _ in flagged), kinds=kinds,
                            examples=tuple(mask(t) for t, _ in flagged[:_SHOWN]))


def screen_dataset(dataset: TransactionDataset) -> IdentifierScreen:
    """:func:`screen_terms` over a dataset's vocabulary and the user-column values its reader found among the items."""
    return screen_terms(dataset.vocabulary, dataset.metadata.get(USER_TERMS_KEY, ()))


def refuse_identifiers(screen: IdentifierScreen, what: str = "the dataset") -> None:
    """Raise :class:`InputError` (one line, masked examples) when ``screen`` flagged any term."""
    if screen.clean:
        return
    raise InputError(f"{what}: {screen.describe()}; a release publishes the terms it is given (disassociation "
                     "every one of them), so they would be published: remove them from the data, or pass "
                     "--allow-identifiers (allow_identifiers=True) if they are not identifiers (the release's params "
                     "then say identifiers_allowed)")
