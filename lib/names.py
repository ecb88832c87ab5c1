"""Text made into a safe name for a file or a URL: the one sanitiser every layer uses.

Its callers differ on purpose, each through a parameter: a data set's URL name keeps non-ASCII
letters' places as dashes (`lib.store.datasets.url_name`), an upload's file stem folds them to
ASCII and joins with "_" (`lib.store.datasets.safe_stem`), and an export's file stem is lower case
with only letters, digits and dashes (`lib.views.exports.file_stem`).
"""

from __future__ import annotations

import re
import unicodedata


def safe_name(
    text: str,
    *,
    keep: str = "._-",
    joiner: str = "-",
    strip: str = "-",
    ascii_fold: bool = True,
    lower: bool = False,
    most: int | None = None,
    fallback: str = "",
) -> str:
    """`text` with every run of characters other than ASCII letters, digits and those in `keep` made
    `joiner`, then `strip` taken off both ends, cut to `most` characters; `fallback` when nothing is left.

    With `ascii_fold`, accented letters first become their plain ASCII letters (`é` -> `e`) and other
    non-ASCII characters go; without it they are replaced like any other character. `lower` lower-cases.

    >>> safe_name("Journal club: week 3/4", keep="", lower=True)
    'journal-club-week-3-4'
    """
    if ascii_fold:
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    name = re.sub(f"[^A-Za-z0-9{re.escape(keep)}]+", joiner, text).strip(strip)
    if lower:
        name = name.lower()
    return name[:most] or fallback
