"""The same list and settings give the same map on any machine: builds in subprocesses under
several OpenBLAS kernels, BLAS thread counts and NumPy SIMD levels write the same bytes.

What is compared is `papers.parquet` (topics, labels, subfields, keywords and the coordinates,
which are promised to the bit: a tolerance of 0) and `embeddings.npy`. Each build's `papers.json`
records the kernel it ran, so the test also checks the variants really ran different kernels.
"""

import hashlib
import json
import os
import platform
import subprocess
import sys

import pytest
from conftest import REPO, SEED_SAMPLE, SHARED_DATA

pytestmark = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="OpenBLAS core types of x86-64")


def cpu_flags() -> set[str]:
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return set()
    return set(next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), []))


def avx512_numpy() -> bool:
    from numpy._core._multiarray_umath import __cpu_features__

    return bool(__cpu_features__.get("X86_V4"))


def variants() -> dict[str, dict[str, str | None]]:
    """Environment changes per build: None removes a variable. The first is the machine's own choice."""
    own = os.environ.get("OPENBLAS_CORETYPE")  # this workplace sets it on some processors
    found = {"own kernel, 2 threads": {"OPENBLAS_CORETYPE": own, "OPENBLAS_NUM_THREADS": "2"}}
    found["own kernel, 1 thread"] = {"OPENBLAS_CORETYPE": own, "OPENBLAS_NUM_THREADS": "1"}
    found["Prescott"] = {"OPENBLAS_CORETYPE": "Prescott", "OPENBLAS_NUM_THREADS": "2"}
    flags = cpu_flags()
    if "avx" in flags:
        found["Sandybridge"] = {"OPENBLAS_CORETYPE": "Sandybridge", "OPENBLAS_NUM_THREADS": "2"}
    if {"avx2", "fma"} <= flags:
        found["Haswell, 1 thread"] = {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": "1"}
    if avx512_numpy():  # as on a CPU with AVX2 but no AVX-512: NumPy's exp, log and power change
        found["Haswell, NumPy without AVX-512"] = {
            "OPENBLAS_CORETYPE": "Haswell",
            "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
        }
    return found


def variant_env(changes: dict[str, str | None], python_path: str = str(REPO)) -> dict[str, str]:
    """This process's environment with a variant's `changes` (None removes a variable) and `python_path`."""
    env = {**os.environ, "PYTHONPATH": python_path}
    for name, value in changes.items():
        env.pop(name, None)
        if value is not None:
            env[name] = value
    return env


def build(input_path, out, changes):
    env = variant_env(changes)
    command = [sys.executable, "-m", "lib", "build", str(input_path), "--out", str(out), "--cache", str(out) + "-cache"]
    subprocess.run(command, cwd=REPO, env=env, check=True, capture_output=True, timeout=600)
    sidecar = json.loads((out / "papers.json").read_text())
    digest = {
        name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in ("papers.parquet", "embeddings.npy")
    }
    return digest, sidecar["environment"]


LISTS = {"seed": SEED_SAMPLE, "ijcai2023": SHARED_DATA / "ijcai2023.json"}


@pytest.mark.parametrize("name", LISTS)
def test_every_kernel_thread_count_and_simd_level_builds_the_same_map(name, tmp_path):
    if not LISTS[name].exists():
        pytest.skip(f"{LISTS[name]} is not here (../shared is absent)")
    builds = {
        label: build(LISTS[name], tmp_path / str(n), changes) for n, (label, changes) in enumerate(variants().items())
    }
    kernels = {library["architecture"] for _, env in builds.values() for library in env["blas"]}
    assert len(kernels) >= 2, f"every variant ran the same BLAS kernel: {kernels}"
    reference = builds["own kernel, 2 threads"][0]
    differing = [label for label, (digest, _) in builds.items() if digest != reference]
    assert differing == [], f"{name}: these builds differ from the machine's own: {differing}"
