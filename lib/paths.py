"""Where PaperMap's own files are: the embedded default list and taxonomy, the cache and build folders."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT / "data" / "icml2025_seed.txt"
DEFAULT_TAXONOMY = REPO_ROOT / "data" / "taxonomy" / "icml2025.yaml"
DEFAULT_CACHE_DIR = REPO_ROOT / "data" / "cache"
DEFAULT_OUT_ROOT = REPO_ROOT / "data" / "build"
