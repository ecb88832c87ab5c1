"""The data sets on offer, their URL names, and uploads: checked by content, kept inside their folder."""

import json
import re

import pytest
from conftest import SEED_SAMPLE, HashingEmbedder, planted_records

from lib.builder.pipeline import STAGE_VERSIONS, build
from lib.errors import DataSetError, InputError, PaperMapError
from lib.paths import DEFAULT_DATA, DEFAULT_TAXONOMY
from lib.stages.load import load_papers, papers_from_bytes
from lib.stages.readers import FORMATS
from lib.store.datasets import (
    FORMAT_SUFFIXES,
    built_papers,
    catalog,
    check_paper_list,
    dashboard_map_dir,
    describe,
    human_size,
    safe_stem,
    save_upload,
    url_name,
)

PLANTED = json.dumps(planted_records(per_topic=4)).encode()
URL_SAFE = re.compile(r"^[A-Za-z0-9._-]+$")


def all_files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.fixture
def data_dir(tmp_path):
    folder = tmp_path / "data"
    (folder / "taxonomy").mkdir(parents=True)
    (folder / "b_list.json").write_bytes(PLANTED)
    (folder / "a list (2024).csv").write_text("title,abstract\nA paper,About bandits.\n")
    (folder / "notes.md").write_text("# not a paper list")
    (folder / "empty.json").write_bytes(b"")
    (folder / ".b_list.json.123.tmp").write_bytes(PLANTED[:10])  # an atomic write in progress
    (folder / "papermap.sqlite").write_bytes(b"SQLite format 3\x00")
    (folder / "taxonomy" / "mine.yaml").write_text("areas: {}")
    return folder


def test_default_catalog_offers_the_embedded_sample_first():
    offered = catalog()
    assert offered.default.path == DEFAULT_DATA and offered.default.origin == "embedded"
    assert offered.default.taxonomy == DEFAULT_TAXONOMY
    assert [s.path for s in offered.sets].count(DEFAULT_DATA) == 1  # the sample is also in data/: offered once


def test_catalog_lists_the_folders_paper_lists_by_name_and_nothing_else(data_dir):
    offered = catalog(data_dir)
    assert [(s.origin, s.path.name) for s in offered.sets] == [
        ("embedded", "icml2025_seed.txt"),
        ("folder", "a list (2024).csv"),
        ("folder", "b_list.json"),
        ("folder", "empty.json"),
    ]
    names = [s.name for s in offered.sets]
    assert all(URL_SAFE.match(n) for n in names) and len(set(names)) == len(names)
    assert names == ["icml2025_seed.txt", "a-list-2024-.csv", "b_list.json", "empty.json"]
    assert catalog(data_dir) == offered  # stable: the same files give the same names


def test_given_data_is_the_default_choice_and_uploads_are_offered(data_dir, tmp_path):
    given = tmp_path / "elsewhere" / "b_list.json"
    given.parent.mkdir()
    given.write_bytes(PLANTED)
    save_upload(data_dir / "uploads", "b_list.json", PLANTED)
    offered = catalog(data_dir, given=given, taxonomy=data_dir / "taxonomy" / "mine.yaml")
    assert offered.default.path == given and offered.default.label == "b_list.json (--data)"
    by_name = {s.name: s for s in offered.sets}
    # Two files with one name: the second gets a suffix; an upload's name says it is one.
    assert by_name["b_list.json"].path == given and by_name["b_list.json-2"].path == data_dir / "b_list.json"
    assert by_name["upload-b_list.json"].origin == "upload"
    assert by_name["upload-b_list.json"].label == "b_list.json (uploaded)"
    assert {s.taxonomy for s in offered.sets} == {data_dir / "taxonomy" / "mine.yaml"}
    assert offered.find("upload-b_list.json") is by_name["upload-b_list.json"]
    assert offered.find("../../etc/passwd") is None
    assert offered.find_path(data_dir / "uploads" / ".." / "b_list.json") is by_name["b_list.json-2"]


def test_a_given_file_inside_the_folder_is_offered_once_as_given(data_dir):
    offered = catalog(data_dir, given=data_dir / "b_list.json")
    assert [s.origin for s in offered.sets if s.path.name == "b_list.json"] == ["given"]


def test_a_missing_data_folder_offers_the_sample_alone(tmp_path):
    offered = catalog(tmp_path / "nowhere")
    assert [s.origin for s in offered.sets] == ["embedded"]
    assert offered.uploads_dir == tmp_path / "nowhere" / "uploads"


@pytest.mark.parametrize(
    "file_name, stem",
    [
        ("../../x.json", "x"),
        ("/etc/passwd", "passwd"),
        ("C:\\Users\\me\\..\\y.csv", "y"),
        ("uploads/../../../z.json", "z"),
        ("evil\x00.json/../../w.json", "w"),
        ("a\x00b.json", "b"),
        ("..", ""),
        (".", ""),
        ("", ""),
        ("...json", "json"),
        (".bashrc", "bashrc"),
        ("my paper (v2).JSON", "my_paper_v2"),
        ("Résumé.json", "Resume"),
        ("论文.json", ""),
        ("x" * 300 + ".json", "x" * 100),
    ],
)
def test_safe_stem_keeps_only_a_plain_last_component(file_name, stem):
    assert safe_stem(file_name) == stem
    assert "/" not in stem and "\\" not in stem and "\x00" not in stem and not stem.startswith(".")


@pytest.mark.parametrize("file_name", ["../../x.json", "/tmp/abs.json", "a\x00b.json", "", "..", "../uploads/../../"])
def test_an_upload_never_writes_outside_the_uploads_folder(tmp_path, file_name):
    uploads = tmp_path / "data" / "uploads"
    saved = save_upload(uploads, file_name, PLANTED)
    assert saved.parent == uploads and saved.is_file() and saved.read_bytes() == PLANTED
    assert URL_SAFE.match(saved.name) and not saved.name.startswith(".")
    assert all_files(tmp_path) == [f"data/uploads/{saved.name}"]  # nothing else, no temp file


def test_an_empty_name_is_saved_as_upload_with_the_suffix_its_content_reads_as(tmp_path):
    assert save_upload(tmp_path, "", PLANTED).name == "upload.json"
    assert save_upload(tmp_path, "..", SEED_SAMPLE.read_bytes()).name == "upload.txt"


def test_the_saved_suffix_follows_the_content_not_the_name(tmp_path):
    assert save_upload(tmp_path, "papers.txt", PLANTED).name == "papers.json"
    csv = b"title,abstract\nA paper,About bandits and regret.\n"
    assert save_upload(tmp_path, "papers.exe", csv).name == "papers.csv"


@pytest.mark.parametrize(
    "content, error, words",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff", InputError, "not valid UTF-8"),
        (b'[{"title": ', InputError, "invalid JSON"),
        (b'{"message": "not found"}', InputError, "expected a JSON list"),
        (b"   \n", InputError, "empty"),
        (b'[{"id": 1, "venue": "ICML"}]', DataSetError, "no paper with a title or an abstract"),
    ],
)
def test_content_that_is_not_a_paper_list_is_refused_and_not_saved(tmp_path, content, error, words):
    with pytest.raises(error, match=words) as raised:
        save_upload(tmp_path / "uploads", "papers.json", content)
    assert "\n" not in str(raised.value) and isinstance(raised.value, PaperMapError)
    assert not (tmp_path / "uploads").exists()


def test_an_upload_over_the_size_limit_is_refused_with_both_sizes(tmp_path):
    with pytest.raises(DataSetError) as raised:
        save_upload(tmp_path, "big.json", PLANTED, max_bytes=1024)
    assert str(raised.value) == f"big is {human_size(len(PLANTED))}; uploads are limited to 1 KB."
    assert all_files(tmp_path) == []


def test_uploads_together_stay_under_their_total_limit(tmp_path):
    other = json.dumps(planted_records(per_topic=4, seed=1)).encode()
    limit = len(PLANTED) + len(other) + 10
    save_upload(tmp_path, "one.json", PLANTED, max_total_bytes=limit)
    save_upload(tmp_path, "two.json", other, max_total_bytes=limit)
    assert save_upload(tmp_path, "again.json", PLANTED, max_total_bytes=limit).name == "one.json"  # no new bytes
    third = json.dumps(planted_records(per_topic=4, seed=2)).encode()
    with pytest.raises(DataSetError, match=r"^three was not saved: the uploads folder holds .* limited to ") as raised:
        save_upload(tmp_path, "three.json", third, max_total_bytes=limit)
    assert "\n" not in str(raised.value) and all_files(tmp_path) == ["one.json", "two.json"]


def test_the_same_content_uploaded_twice_is_kept_once(tmp_path):
    first = save_upload(tmp_path, "papers.json", PLANTED)
    assert save_upload(tmp_path, "papers.json", PLANTED) == first
    assert save_upload(tmp_path, "renamed copy.json", PLANTED) == first
    other = json.dumps(planted_records(per_topic=4, seed=1)).encode()
    second = save_upload(tmp_path, "papers.json", other)
    assert second.name == "papers-2.json" and second.read_bytes() == other
    assert first.read_bytes() == PLANTED
    assert all_files(tmp_path) == ["papers-2.json", "papers.json"]


def test_check_paper_list_counts_the_papers_it_would_load():
    assert check_paper_list(PLANTED, "icml/list.json", fallback="x") == ("list.json", 12)
    assert check_paper_list(SEED_SAMPLE.read_bytes(), "", fallback="download") == ("download.txt", 19)


def test_papers_from_bytes_reads_as_load_papers_does():
    from_file = load_papers(SEED_SAMPLE)
    from_bytes = papers_from_bytes(SEED_SAMPLE.read_bytes(), SEED_SAMPLE)
    assert from_bytes.papers.equals(from_file.papers) and from_bytes.report == from_file.report


@pytest.mark.parametrize("name", ["icml2025_seed.txt", "a list (2024).csv", "../x?y=1&z#w.json", "论文.json", "---"])
def test_url_names_are_url_safe(name):
    assert URL_SAFE.match(url_name(name))


def test_human_size():
    assert [human_size(n) for n in (0, 812, 4352, 200 * 1024 * 1024, 262_000_000)] == [
        "0 B",
        "812 B",
        "4.2 KB",
        "200 MB",
        "250 MB",
    ]


def test_describe_tells_built_sets_from_the_rest(tmp_path):
    data = tmp_path / "planted2025.json"
    data.write_bytes(PLANTED)
    offered = catalog(tmp_path / "data", given=data)
    cache = tmp_path / "cache"
    before = describe(offered.sets, cache)
    assert [(r["name"], r["papers"], r["built"]) for r in before] == [
        ("planted2025.json", None, False),
        ("icml2025_seed.txt", None, False),
    ]
    assert before[0]["size"] == human_size(len(PLANTED))
    build(
        data,
        taxonomy_path=DEFAULT_TAXONOMY,
        out_dir=dashboard_map_dir(data, DEFAULT_TAXONOMY, cache),
        cache_dir=cache,
        embedder=HashingEmbedder(),
    )
    after = describe(offered.sets, cache)
    assert [(r["papers"], r["built"]) for r in after] == [(12, True), (None, False)]
    data.write_bytes(PLANTED + b"\n")  # an edited file is a new map, not yet built
    assert built_papers(offered.default, cache) is None


def test_map_folder_is_named_for_the_files_and_versions_and_fails_in_one_sentence(tmp_path, monkeypatch):
    folder = dashboard_map_dir(SEED_SAMPLE, DEFAULT_TAXONOMY, tmp_path)
    assert folder.parent == tmp_path / "maps" and folder == dashboard_map_dir(SEED_SAMPLE, DEFAULT_TAXONOMY, tmp_path)
    assert folder != dashboard_map_dir(SEED_SAMPLE, SEED_SAMPLE, tmp_path)  # another taxonomy, another map
    # A PaperMap whose load stage gives other output maps the same file again rather than show a stale map.
    monkeypatch.setitem(STAGE_VERSIONS, "load", STAGE_VERSIONS["load"] + 1)
    assert dashboard_map_dir(SEED_SAMPLE, DEFAULT_TAXONOMY, tmp_path) != folder
    with pytest.raises(PaperMapError, match="missing.json: cannot be read"):
        dashboard_map_dir(tmp_path / "missing.json", DEFAULT_TAXONOMY, tmp_path)


def test_every_format_has_a_suffix_to_be_saved_under():
    assert set(FORMATS) - {"auto"} == set(FORMAT_SUFFIXES)
