# Requirements computed at run time: each is skipped with the reason, and
# the literals beside them are still read.
import pathlib

from setuptools import setup

suffix = "-cpu"
NUMBA_MAX = "0.66.0"
with open("requirements-docs.txt") as fh:
    DOCS = fh.read().splitlines()


def parse_requirements(name):
    with open(name) as f:
        return [line.strip() for line in f if line.strip()]


setup(
    install_requires=[
        "tensorflow" + suffix,
        "numba<={}".format(NUMBA_MAX),
        "llvmlite<=%s" % "0.44",
        f"jax<={NUMBA_MAX}",
        "protobuf>=5,<6",
    ] + parse_requirements("requirements.txt"),
    tests_require=open("requirements-test.txt").read().splitlines(),
    extras_require={
        "docs": DOCS,
        "gpu": pathlib.Path("requirements", "gpu.txt").read_text().split(),
        "dev": [r for r in ["black", "ruff"]],
        "jit": {"numba": "numba<1"}["numba"],
        "other": sorted(["scipy"]),
    },
)
