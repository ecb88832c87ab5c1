"""Every third-party module the code imports is declared, pinned, in the requirements file that
installs its folder: a package that a machine happened to have once made CI pass while a fresh
machine failed at collection."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
from pathlib import Path

import pytest
from conftest import REPO

# The folders and the requirements file that installs what each imports.
REQUIREMENTS_OF = {
    "lib": "requirements.txt",
    "app_pages": "requirements.txt",
    "dashboard.py": "requirements.txt",
    "tests": "requirements-dev.txt",
    "bench": "requirements-bench.txt",
}
# Optional backends: an import that the code guards (try/except ImportError, pytest.importorskip)
# may come from these instead.
OPTIONAL_REQUIREMENTS = ("requirements-embed.txt", "requirements-dask.txt")
PINNED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==[A-Za-z0-9.+!-]+$")
LOCAL_PACKAGES = {"lib"}


def canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(file: str) -> dict[str, str]:
    """Distribution -> the line declaring it, from `file` and the files it includes with -r."""
    names: dict[str, str] = {}
    for raw in (REPO / file).read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r "):
            names.update(declared(line[3:].strip()))
            continue
        match = PINNED.match(line)
        assert match, f"{file}: {raw!r} is not pinned as name==version"
        names[canonical(match.group(1))] = f"{file}: {line}"
    return names


def python_files(folder: str) -> list[Path]:
    path = REPO / folder
    return [path] if path.is_file() else sorted(path.rglob("*.py"))


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether `node` sits in a try block that handles ImportError (an optional import)."""
    while node in parents:
        child, node = node, parents[node]
        if isinstance(node, ast.Try) and child in node.body:
            for handler in node.handlers:
                caught = handler.type
                names = [caught] if not isinstance(caught, ast.Tuple) else caught.elts
                if any(
                    isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError", "Exception")
                    for n in names
                ):
                    return True
    return False


def third_party_imports(path: Path) -> list[tuple[str, int, bool]]:
    """(top-level module, line, optional) for each import of `path` outside the standard library and the repo."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    siblings = {p.stem for p in path.parent.glob("*.py")} | {p.name for p in path.parent.iterdir() if p.is_dir()}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules, optional = [alias.name for alias in node.names], _guarded(node, parents)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules, optional = [node.module], _guarded(node, parents)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "importorskip"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            modules, optional = [node.args[0].value], True
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top == "__future__" or top in LOCAL_PACKAGES or top in siblings:
                continue
            found.append((top, node.lineno, optional))
    return found


@functools.cache
def distributions(module: str) -> list[str]:
    """The distributions that install `module`: from this environment's metadata, or, for one not
    installed here (an optional backend), the distribution named like the module."""
    installed = _installed().get(module)
    return [canonical(name) for name in installed] if installed else [canonical(module)]


@functools.cache
def _installed() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


@pytest.mark.parametrize("folder", REQUIREMENTS_OF)
def test_every_imported_package_is_declared_for_its_folder(folder):
    required = declared(REQUIREMENTS_OF[folder])
    optional = {name: line for file in OPTIONAL_REQUIREMENTS for name, line in declared(file).items()}
    missing = []
    for path in python_files(folder):
        for module, line, is_optional in third_party_imports(path):
            allowed = {**optional, **required} if is_optional else required
            if not any(name in allowed for name in distributions(module)):
                missing.append(f"{path.relative_to(REPO)}:{line} imports {module}")
    assert missing == [], f"not declared in {REQUIREMENTS_OF[folder]}:\n" + "\n".join(missing)


def test_the_check_sees_what_a_file_imports(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nimport numpy.linalg\nfrom yaml import safe_load\nfrom . import near\n"
        "try:\n    import torch\nexcept ImportError:\n    torch = None\n"
        "def f(pytest):\n    pytest.importorskip('yake')\n",
        encoding="utf-8",
    )
    assert third_party_imports(sample) == [
        ("numpy", 2, False),
        ("yaml", 3, False),
        ("torch", 6, True),
        ("yake", 10, True),
    ]
    assert distributions("yaml") == ["pyyaml"] and distributions("sklearn") == ["scikit-learn"]


def test_requirement_files_pin_every_package():
    for file in {*REQUIREMENTS_OF.values(), *OPTIONAL_REQUIREMENTS}:
        assert declared(file), file  # and `declared` asserts each line is name==version
