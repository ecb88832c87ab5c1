"""Text -> word-piece ids, as BERT's uncased tokenizer splits it: the input of `sentence_model`.

Basic tokenization (control characters dropped, lower case, accents stripped, CJK characters and
punctuation split off) and then greedy longest-match-first word pieces over the model's vocabulary
(`vocab.txt`, one piece a line, continuations prefixed `##`). Pure Python, so the ids are the same
on any machine; `tests/test_sentence_model.py` compares them with Hugging Face's tokenizer.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path

MAX_WORD_CHARS = 100  # longer words are one unknown piece, as in BERT


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    # BERT counts every non-alphanumeric ASCII character as punctuation ("$", "^", "`").
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2B73F
        or 0x2B740 <= code <= 0x2B81F
        or 0x2B820 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


def basic_words(text: str) -> list[str]:
    """`text` cleaned, lower-cased, accent-stripped and split into words and single punctuation marks."""
    chars = []
    for char in text:
        code = ord(char)
        if code == 0 or code == 0xFFFD or (unicodedata.category(char).startswith("C") and char not in "\t\n\r"):
            continue
        chars.append(f" {char} " if _is_cjk(code) else " " if char.isspace() else char)
    words = []
    for word in "".join(chars).lower().split():
        word = "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")
        current = ""
        for char in word:
            if _is_punctuation(char):
                words += [current, char] if current else [char]
                current = ""
            else:
                current += char
        if current:
            words.append(current)
    return words


class WordPiece:
    """BERT's uncased word-piece tokenizer over `vocab` (the pieces in id order)."""

    def __init__(self, vocab: Sequence[str]) -> None:
        self.ids = {piece: i for i, piece in enumerate(vocab)}
        self.unknown, self.start, self.end = self.ids["[UNK]"], self.ids["[CLS]"], self.ids["[SEP]"]

    @classmethod
    def from_file(cls, path: str | Path) -> WordPiece:
        return cls(Path(path).read_text(encoding="utf-8").splitlines())

    def pieces(self, word: str) -> list[int]:
        """The ids of `word`'s longest-first pieces; one unknown id when some part matches nothing."""
        if len(word) > MAX_WORD_CHARS:
            return [self.unknown]
        found, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else f"##{word[start:end]}"
                if piece in self.ids:
                    found.append(self.ids[piece])
                    break
                end -= 1
            if end == start:
                return [self.unknown]
            start = end
        return found

    def encode(self, text: str, max_tokens: int) -> list[int]:
        """`[CLS]`, `text`'s pieces cut to fit, `[SEP]`: at most `max_tokens` ids."""
        ids = [self.start]
        for word in basic_words(text):
            ids += self.pieces(word)
            if len(ids) >= max_tokens - 1:
                break
        return ids[: max_tokens - 1] + [self.end]
