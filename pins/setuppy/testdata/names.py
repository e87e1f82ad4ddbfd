# Names the module assigns: once, in each arm of an if, more than once, in a
# loop, or imported.
import os
import sys

from setuptools import setup
from _deps import EXTERNAL

REQUIRED = [
    "numpy>=1.22",
    "numba>=0.58,<=0.66.0",
]
JAX: str = "jax<=0.4.30"
TESTS = REQUIRED + ["pytest"]
ALL = [*REQUIRED, JAX, "llvmlite<0.44"]

if "--nightly" in sys.argv:
    TF_PACKAGE = "tf-nightly"
elif os.environ.get("TF_CPU"):
    TF_PACKAGE = "tensorflow-cpu>=2.16,<=2.19.1"
else:
    TF_PACKAGE = "tensorflow>=2.16,<=2.19.1"

PROTO = "protobuf<5"
if os.environ.get("NEW_PROTOBUF"):
    PROTO = "protobuf<6"

for _flavour in ("cpu", "gpu"):
    LOOPED = "jaxlib<=0.4.30"

SELF = SELF

setup(
    install_requires=REQUIRED,
    tests_require=TESTS,
    extras_require={
        "jax": [JAX],
        "tf": [TF_PACKAGE],
        "all": ALL,
        "proto": [PROTO],
        "looped": [LOOPED],
        "external": EXTERNAL,
        "self": [SELF],
        "undefined": [UNDEFINED],
    },
)
