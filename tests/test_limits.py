"""lib.limits: every input that could make PaperMap work without bound is refused, in one
sentence naming the limit, before the work; the limits can be changed by whoever runs PaperMap."""

import json
import subprocess
import sys
import time

import pytest
import yaml
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.errors import InputError, ParameterError, TaxonomyError
from lib.limits import Limits, limits
from lib.stages.bibtex import parse_bibtex
from lib.stages.load import load_papers
from lib.stages.taxonomy import load_taxonomy


def doubling_macros(levels: int, seed: str = "xxxxxxxxxxxxxxxx") -> str:
    """@string macros each twice the one before: 40 levels are 1 kB of text for 16 TB of value."""
    lines = [f'@string{{a0 = "{seed}"}}'] + [f"@string{{a{i} = a{i - 1} # a{i - 1}}}" for i in range(1, levels)]
    return "\n".join([*lines, f"@article{{k, title = a{levels - 1}}}"])


def test_macros_that_double_are_refused_at_once_naming_the_limit():
    text = doubling_macros(40)
    assert len(text) < 1100
    started = time.monotonic()
    with pytest.raises(InputError, match=r"pasted: entry at line \d+: field 'a\d+' expands to more than 100,000"):
        parse_bibtex(text, "pasted")
    assert time.monotonic() - started < 1


def test_many_values_under_the_value_limit_still_meet_the_total_limit(monkeypatch):
    monkeypatch.setenv("PAPERMAP_LIMIT_BIBTEX_TOTAL_CHARS", "10000")
    entries = "\n".join(f"@article{{k{j}, title = big}}" for j in range(20))
    with pytest.raises(InputError, match="more than 10,000 characters in all"):
        parse_bibtex(f'@string{{big = "{"y" * 900}"}}\n{entries}', "pasted")


def test_ordinary_macros_and_concatenation_still_work():
    (entry,) = parse_bibtex('@string{j = "Journal"}\n@article{k, title = "A " # j, month = jan}')
    assert entry.fields["title"] == "A Journal"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=25), st.integers(1, 2000))
def test_random_expanding_macros_stay_within_the_limits(links, seed_length):
    """Macros joining any two earlier ones: parsed with every value within the limit, or refused."""
    lines = [f'@string{{m0 = "{"z" * seed_length}"}}']
    for n, (a, b) in enumerate(links, 1):
        lines.append(f"@string{{m{n} = m{min(a, n - 1)} # m{min(b, n - 1)}}}")
    lines.append(f"@article{{k, title = m{len(links)}, note = m{len(links) // 2}}}")
    bound = Limits()
    try:
        entries = parse_bibtex("\n".join(lines), "pasted")
    except InputError as error:
        assert "expands to more than" in str(error)
        return
    assert all(len(value) <= bound.bibtex_value_chars for value in entries[0].fields.values())


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_yaml_aliases_are_refused(tmp_path):
    path = write(tmp_path, "t.yaml", "a: &a [x, x]\nb: &b [*a, *a, *a]\nsubfields:\n  - name: A\n    terms: *b\n")
    with pytest.raises(TaxonomyError, match=r"t.yaml: line 2: YAML aliases \(\*name\) are not allowed"):
        load_taxonomy(path)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_taxonomy_nested_100000_levels_is_one_sentence(tmp_path, suffix):
    text = '{"subfields": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(TaxonomyError, match="nested too deeply"):
        load_taxonomy(write(tmp_path, f"deep{suffix}", text))


def test_entries_nested_past_the_depth_limit_are_refused(tmp_path):
    entry = {"name": "leaf"}
    for level in range(12):
        entry = {"name": f"level {level}", "children": [entry]}
    with pytest.raises(TaxonomyError, match="nested too deeply"):
        load_taxonomy(write(tmp_path, "t.json", json.dumps({"subfields": [entry]})))


def test_too_many_entries_and_too_many_bytes_are_refused(tmp_path, monkeypatch):
    many = {"subfields": [{"name": f"n{i}"} for i in range(5001)]}
    with pytest.raises(TaxonomyError, match=r"more than 5,000 entries \(PAPERMAP_LIMIT_TAXONOMY_ENTRIES\)"):
        load_taxonomy(write(tmp_path, "many.yaml", yaml.safe_dump(many)))
    monkeypatch.setenv("PAPERMAP_LIMIT_TAXONOMY_BYTES", "100")
    with pytest.raises(TaxonomyError, match=r"over the 100 a taxonomy may have"):
        load_taxonomy(write(tmp_path, "big.yaml", yaml.safe_dump({"subfields": [{"name": "x" * 200}]})))


@settings(max_examples=30, deadline=None)
@given(
    st.recursive(
        st.just({"name": "leaf"}),
        lambda inner: st.lists(inner, max_size=3).map(lambda c: {"children": c}),
        max_leaves=60,
    )
)
def test_random_nested_taxonomies_load_within_the_limits_or_are_refused(tree):
    counter = iter(range(10**6))

    def named(node):
        return {
            "name": f"e{next(counter)}",
            **({"children": [named(c) for c in node["children"]]} if "children" in node else {}),
        }

    from lib.stages.taxonomy import parse_taxonomy

    try:
        taxonomy = parse_taxonomy({"subfields": [named(tree)]})
    except TaxonomyError as error:
        assert "nested too deeply" in str(error) or "entries" in str(error)
        return
    bound = limits()
    assert len(taxonomy.entries) <= bound.taxonomy_entries
    assert max(e.depth for e in taxonomy.entries) < bound.taxonomy_depth


def test_a_list_of_a_million_tiny_records_is_refused_at_once(tmp_path):
    path = tmp_path / "million.json"
    path.write_text(json.dumps([{"title": "t"}] * 1_000_000))
    started = time.monotonic()
    with pytest.raises(InputError, match=r"million.json: more than 250,000 records; PaperMap reads at most 250,000"):
        load_papers(path)
    assert time.monotonic() - started < 20


def test_the_record_limit_holds_for_every_format_and_can_be_changed(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERMAP_LIMIT_LIST_RECORDS", "5")
    lines = "\n".join(json.dumps({"title": f"Paper {n}", "abstract": "Words."}) for n in range(6))
    with pytest.raises(InputError, match="more than 5 records"):
        load_papers(write(tmp_path, "six.jsonl", lines + "\n"))
    assert len(load_papers(write(tmp_path, "five.jsonl", "\n".join(lines.splitlines()[:5]) + "\n")).papers) == 5


def test_a_bad_limit_setting_is_one_sentence(monkeypatch):
    monkeypatch.setenv("PAPERMAP_LIMIT_LIST_RECORDS", "lots")
    with pytest.raises(ParameterError, match="PAPERMAP_LIMIT_LIST_RECORDS must be a positive whole number"):
        limits()


def test_the_build_command_refuses_a_huge_list_in_one_line(tmp_path):
    path = tmp_path / "huge.json"
    path.write_text(json.dumps([{"title": "t"}] * 300_000))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lib",
            "build",
            str(path),
            "--out",
            str(tmp_path / "out"),
            "--cache",
            str(tmp_path / "c"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("error: ") and "at most 250,000" in done.stderr
    assert "Traceback" not in done.stderr
