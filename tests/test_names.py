"""lib.names.safe_name: the one sanitiser behind data set URL names, upload stems and export stems."""

from lib.names import safe_name


def test_defaults_keep_dots_dashes_and_underscores_and_fold_to_ascii():
    assert safe_name("Café déjà vu.json") == "Cafe-deja-vu.json"
    assert safe_name("--x--") == "x"
    assert safe_name("日本") == ""


def test_each_difference_is_a_parameter():
    assert safe_name("é x", ascii_fold=False) == "x"  # the é's place becomes a dash, then stripped
    assert safe_name("a b", joiner="_") == "a_b"
    assert safe_name("._a_.", strip="._-") == "a"
    assert safe_name("A.B", keep="", lower=True) == "a-b"
    assert safe_name("abcdef", most=3) == "abc"
    assert safe_name("???", fallback="data") == "data"
