"""Broken paper lists, made by the tests: the CLI's and the dashboard's tests read the same ones.

REFUSED lists cannot be mapped at all: one sentence naming the file. PARTLY lists hold some bad
records: they load with every record kept or reported as skipped.
"""

import codecs
import json

GOOD = {"title": "Bandits with regret bounds", "abstract": "We bound the regret of bandits."}


def as_json(records) -> bytes:
    return json.dumps(records).encode()


# name -> file bytes
REFUSED = {
    "truncated.json": b'[{"title": "a", "abstract": "b"}, {"title": ',
    "object.json": as_json({"title": "x"}),
    "strings.json": as_json(["a", "b"]),
    "badutf8.json": b'[{"title": "caf\xe9", "abstract": "x"}]',
    "badutf16.json": codecs.BOM_UTF16_LE + '[{"title": "x"}]'.encode("utf-16-le")[:-1],  # an odd byte count
    "empty.json": b"",
    "empties.json": as_json([{}] * 100_000),
    "nested.json": b"[" * 100_000,
}

# name -> (file bytes, papers kept)
PARTLY = {
    "types.json": (
        as_json([{"title": 5, "abstract": None, "author": [["x"]]}, {"title": ["a"], "abstract": {"a": 1}}, GOOD]),
        2,
    ),
    "utf16.json": (codecs.BOM_UTF16_LE + json.dumps([GOOD]).encode("utf-16-le"), 1),
    "utf16be.json": (codecs.BOM_UTF16_BE + json.dumps([GOOD], ensure_ascii=False).encode("utf-16-be"), 1),
    "ragged.csv": (b'title,abstract\n"a","b"\n"c"\n"d","e","f"\n"multi\nline","x"\n', 3),
    "newlines.csv": (
        b'title,abstract\r\n"Two\nlines","An abstract\r\nover two lines."\r\n"Plain","One\n\nwith a blank line."\r\n',
        2,
    ),
    "broken-line.jsonl": (b'{"title": "First"}\n{"title": "Broken", \n\n{"title": "Third", "abstract": "x"}\n', 2),
    "big.json": (as_json([{"title": "Big", "abstract": "word " * 1_000_000}]), 1),  # a 5 MB abstract
    # 10^4 records under one id: 100 papers, each repeated 100 times (a map of 10^4 would take most of
    # a minute; tests/test_load.py loads 3 * 10^4 different records under one id).
    "dups.json": (
        as_json(
            [{"id": "same", "title": f"Paper {i % 100}", "abstract": f"About topic {i % 100}."} for i in range(10_000)]
        ),
        100,
    ),
    "latex-titles.json": (
        as_json(
            [
                {"title": "$\\mathcal{O}(\\sqrt{n})$", "abstract": "Rates."},
                {"title": "\\frac{}{}"},
                {"title": "\\emph{}", "abstract": "An abstract under a title of empty markup."},
                {"title": "\\emph{}"},
            ]
        ),
        3,
    ),
    "emoji-titles.json": (
        as_json([{"title": "😀😀", "abstract": "Faces."}, {"title": "🧪🔬🤖"}, {"title": "👩‍🔬 🏳️‍🌈"}]),
        3,
    ),
    "non-english.json": (
        json.dumps(
            [
                {"title": "Нейронные сети", "abstract": "Мы изучаем обучение нейронных сетей."},
                {"title": "深度学习", "abstract": "深度学习 的 研究 与 应用。"},
                {"title": "التعلم الآلي", "abstract": "نحن ندرس التعلم الآلي."},
                {"title": "機械学習", "abstract": "機械学習の理論を研究する。"},
                {"title": "मशीन लर्निंग", "abstract": "हम मशीन लर्निंग का अध्ययन करते हैं।"},
            ],
            ensure_ascii=False,
        ).encode(),
        5,
    ),
    "control-chars.json": (
        as_json(
            [
                {"title": "\x00\x07 Bell", "abstract": "\x1b[31mred\x1b[0m text"},
                {"title": "Tab\tand\r\nnewline", "abstract": "\u202eright-to-left override"},
                {"title": "\x00\x01\x02", "abstract": "\x7f"},
            ]
        ),
        2,
    ),
    "surrogates.json": (
        as_json([{"title": "Lone \ud800 surrogate", "abstract": "\udfff"}]),
        1,
    ),  # written as \ud800 escapes
}
