"""English stop words: scikit-learn's list, read without importing scikit-learn.

`from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS` first runs scikit-learn's package
set-up, which loads most of scikit-learn and SciPy in each build process for one frozenset
(docs/performance.md, "a third pass"). The list lives in a module of its own that imports nothing,
so it is run alone from the installed package's file: the same words, whatever scikit-learn
version is installed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

# Where scikit-learn keeps the list, inside its package folder.
SKLEARN_STOP_WORDS_FILE = Path("feature_extraction") / "_stop_words.py"


def _sklearn_stop_words() -> frozenset[str]:
    """`sklearn.feature_extraction.text.ENGLISH_STOP_WORDS`, from its file; scikit-learn itself is not imported."""
    package = importlib.util.find_spec("sklearn")  # a top-level package is found without running it
    if package is None or package.origin is None:
        raise ImportError("scikit-learn is not installed: pip install -r requirements.txt")
    spec = importlib.util.spec_from_file_location(
        "lib.stages._sklearn_stop_words", Path(package.origin).parent / SKLEARN_STOP_WORDS_FILE
    )
    assert spec is not None and spec.loader is not None  # a .py file always has a source loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return frozenset(module.ENGLISH_STOP_WORDS)


ENGLISH_STOP_WORDS = _sklearn_stop_words()
