"""House rules that keep the engine testable and offline: Streamlit stays out of lib/, pages only
compose, and only the fetch command has a way to the network."""

import ast
import re
import tomllib

from conftest import REPO

from lib.schema import OUTPUT_COLUMNS


def imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_only_ui_state_imports_streamlit():
    ui_state = REPO / "lib" / "ui_state"
    offenders = [
        p.name
        for p in (REPO / "lib").rglob("*.py")
        if ui_state not in p.parents and any(m.split(".")[0] == "streamlit" for m in imported_modules(p))
    ]
    assert offenders == []
    assert any(m == "streamlit" for m in imported_modules(ui_state / "view.py"))  # the rule checks the right place


# Modules that open connections; urllib.parse and the like only handle text.
NETWORK_MODULES = (
    "socket",
    "ssl",
    "http",
    "urllib.request",
    "urllib.error",
    "requests",
    "httpx",
    "urllib3",
    "aiohttp",
    "ftplib",
    "smtplib",
    "websocket",
    "websockets",
)


def network_imports(path):
    return sorted(
        {
            m
            for m in imported_modules(path)
            if m == "urllib" or any(m == n or m.startswith(n + ".") for n in NETWORK_MODULES)
        }
    )


def test_only_the_fetch_module_imports_networking():
    fetch = REPO / "lib" / "store" / "fetch.py"
    sources = [REPO / "dashboard.py", *(REPO / "lib").rglob("*.py"), *(REPO / "app_pages").glob("*.py")]
    offenders = {
        p.relative_to(REPO).as_posix(): network_imports(p) for p in sources if p != fetch and network_imports(p)
    }
    assert offenders == {}
    assert "urllib.request" in network_imports(fetch)  # the rule checks the right place


# Calls that compute on a DataFrame, Series or array; a page leaves them to lib/views (or lib/ui_state).
DATAFRAME_METHODS = frozenset(
    "agg aggregate all any apply assign astype count cumsum describe drop drop_duplicates dropna eq fillna ge "
    "groupby gt head idxmax idxmin isin isna itertuples iterrows le lt map mask max mean median merge min ne "
    "nlargest notna nsmallest nunique pivot pivot_table query rank reindex rename reset_index round sample "
    "set_index sort_index sort_values std sum tail to_dict to_list to_numpy tolist transform unique "
    "value_counts where".split()
)
# Attributes that index or reach into a DataFrame's or Series' values.
DATAFRAME_INDEXERS = frozenset({"loc", "iloc", "at", "iat", "str", "dt", "values"})


def _is_mask(node):
    # What a boolean mask is made of: comparisons, & | ^ ~, and mask-making method calls (.isin, .eq).
    return (
        isinstance(node, (ast.Compare, ast.BoolOp))
        or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert))
        or (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)))
        or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DATAFRAME_METHODS)
    )


def dataframe_work(source):
    """Where `source` computes on tables or arrays: `line: what`, for DataFrame/array method calls
    (`.groupby(...)`, `.isin(...)`, `.sum()` on anything), indexers (`.loc`, `.iloc`) and subscripts
    by a boolean mask (`papers[papers["x"] == 1]`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DATAFRAME_METHODS:
            found.append(f"{node.lineno}: .{node.func.attr}()")
        elif isinstance(node, ast.Attribute) and node.attr in DATAFRAME_INDEXERS:
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Subscript) and _is_mask(node.slice):
            found.append(f"{node.lineno}: subscript by a mask")
    return sorted(found)


def test_pages_do_no_dataframe_or_array_maths():
    for page in [REPO / "dashboard.py", *(REPO / "app_pages").glob("*.py")]:
        roots = {m.split(".")[0] for m in imported_modules(page)}
        assert not roots & {"pandas", "numpy", "sklearn", "umap"}, page.name
        assert dataframe_work(page.read_text()) == [], page.name
    # the rule sees what pages used to do
    assert dataframe_work('listed = shown[shown["paper_id"].isin(ids)]') == ["1: .isin()", "1: subscript by a mask"]
    assert dataframe_work("paper = papers.iloc[row]\nfor p in papers.itertuples(): pass") == [
        "1: .iloc",
        "2: .itertuples()",
    ]
    assert dataframe_work('counts = papers.groupby("area").size().sort_values()') == [
        "1: .groupby()",
        "1: .sort_values()",
    ]


MAX_MODULE_LINES, MAX_FUNCTION_LINES = 400, 80  # issue 37: modules and functions the next engineer can read


def test_lib_modules_and_functions_stay_short():
    long = []
    for path in sorted((REPO / "lib").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if source.count("\n") > MAX_MODULE_LINES:
            long.append(f"{path.relative_to(REPO)}: {source.count(chr(10))} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}: {length} lines")
    assert long == []


def test_the_output_doc_documents_every_output_column():
    output_doc = (REPO / "docs" / "output.md").read_text()
    for column in OUTPUT_COLUMNS:
        assert f"| `{column.name}` |" in output_doc, column.name


README_COMMANDS = (
    "pip install -r requirements.txt && streamlit run dashboard.py\n"
    "pip install -r requirements-dev.txt && python -m pytest\n"
)


def test_readme_is_a_short_guide_whose_links_all_resolve():
    """README stays a user's guide, its first block is what .ci/run runs, and no link is dead."""
    readme = REPO / "README.md"
    assert readme.stat().st_size <= 15_000
    text = readme.read_text()
    first_block = re.search(r"^```bash\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)
    assert first_block and first_block.group(1) == README_COMMANDS
    dead = []
    for page in [readme, *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            path = target.split("#")[0]
            if not path or re.match(r"[a-z]+:", path):  # an anchor in the same page, or a URL
                continue
            if not (page.parent / path).exists():
                dead.append(f"{page.relative_to(REPO)}: {target}")
    assert dead == []


# The layout: what each part of lib/ may import. The data flow runs one way: stages know nothing of
# how they are run or shown; the front ends (the CLI, the dashboard's ui_state) compose everything.
FOUNDATION = {
    "errors",
    "schema",
    "paths",
    "names",
    "neighbours",
    "exact",
    "limits",
    "files",
    "stored_table",
    "map_folder",
}
MAY_IMPORT = {
    "foundation": {"foundation"},
    "stages": {"foundation", "stages"},
    "builder": {"foundation", "stages", "builder"},
    # builder for the stage versions alone: the dashboard's map folder is named for them (datasets.dashboard_map_dir)
    "store": {"foundation", "stages", "builder", "store"},
    "views": {"foundation", "stages", "store", "views"},  # exports format reading lists
    "cli": {"foundation", "stages", "builder", "store", "views", "cli"},
    "ui_state": {"foundation", "stages", "builder", "store", "views", "ui_state"},
}
PAGES_MAY_IMPORT = {"ui_state", "views", "store", "foundation"}


def part_of(module: str) -> str | None:
    """The part of lib/ that `lib.x.y` belongs to; None outside lib."""
    parts = module.split(".")
    if parts[0] != "lib" or len(parts) < 2:
        return None
    return "foundation" if parts[1] in FOUNDATION else parts[1]


def lib_imports(path):
    """The lib modules `path` imports, `from lib import x` counted as `lib.x`."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.startswith("lib."))
        elif (
            isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "lib"
        ):
            if node.module == "lib":
                yield from (f"lib.{alias.name}" for alias in node.names)
            else:
                yield node.module
        elif isinstance(node, ast.ImportFrom) and node.level:
            yield "."  # relative: inside its own package


def test_every_part_of_lib_imports_only_what_the_layout_allows():
    assert {
        part_of(f"lib.{p.stem if p.is_file() else p.name}")
        for p in (REPO / "lib").iterdir()
        if p.name not in ("__init__.py", "__main__.py", "__pycache__")
    } <= set(MAY_IMPORT)
    against = []
    for path in (REPO / "lib").rglob("*.py"):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        if module in ("lib.__init__", "lib.__main__"):
            continue  # the package itself: `python -m lib` is the CLI
        own = part_of(module)
        for imported in lib_imports(path):
            if imported != "." and part_of(imported) not in MAY_IMPORT[own]:
                against.append(f"{path.relative_to(REPO)} ({own}) imports {imported}")
    assert against == []


def test_pages_import_only_the_dashboards_parts_of_lib():
    against = []
    for page in [REPO / "dashboard.py", *(REPO / "app_pages").glob("*.py")]:
        against += [f"{page.name} imports {m}" for m in lib_imports(page) if part_of(m) not in PAGES_MAY_IMPORT]
    assert against == []


def test_the_layout_check_sees_an_import_against_the_flow(tmp_path):
    stage = tmp_path / "lib" / "stages" / "x.py"
    stage.parent.mkdir(parents=True)
    stage.write_text("from lib.builder.pipeline import build\nfrom lib import schema\n")
    assert list(lib_imports(stage)) == ["lib.builder.pipeline", "lib.schema"]
    assert part_of("lib.builder.pipeline") not in MAY_IMPORT["stages"] and part_of("lib.schema") == "foundation"


def test_no_legacy_pages_folder_beside_the_entry_file():
    """A `pages/` folder beside dashboard.py turns on Streamlit's legacy file-based navigation for the
    server's first script run: a first visit to a deep link then got a "Page not found" dialog."""
    assert not (REPO / "pages").exists()
    tree = ast.parse((REPO / "dashboard.py").read_text())
    page_files = [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Page" and node.args
    ]
    assert sorted(page_files) == sorted(f"app_pages/{path.name}" for path in (REPO / "app_pages").glob("*.py"))


def test_the_dashboard_listens_on_this_machine_only():
    """`streamlit run dashboard.py` as README gives it must not open the laptop to its network."""
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
