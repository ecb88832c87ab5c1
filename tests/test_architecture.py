"""House rules that keep the engine testable and offline: Streamlit stays out of lib/, pages only
compose, and only the fetch command has a way to the network."""

import ast

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
    sources = [REPO / "dashboard.py", *(REPO / "lib").rglob("*.py"), *(REPO / "pages").glob("*.py")]
    offenders = {
        p.relative_to(REPO).as_posix(): network_imports(p) for p in sources if p != fetch and network_imports(p)
    }
    assert offenders == {}
    assert "urllib.request" in network_imports(fetch)  # the rule checks the right place


def test_pages_do_no_dataframe_or_array_maths():
    for page in [REPO / "dashboard.py", *(REPO / "pages").glob("*.py")]:
        roots = {m.split(".")[0] for m in imported_modules(page)}
        assert not roots & {"pandas", "numpy", "sklearn", "umap"}, page.name


def test_readme_documents_every_output_column():
    readme = (REPO / "README.md").read_text()
    for column in OUTPUT_COLUMNS:
        assert f"| `{column.name}` |" in readme, column.name
