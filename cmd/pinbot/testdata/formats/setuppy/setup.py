import sys

from setuptools import setup

REQUIRED = [
    "numba >= 0.51.0, <= 0.66.0",
    'llvmlite',
    "protobuf >= 5.29.3, < 6",  # the generated code's runtime
]

if "--nightly" in sys.argv:
    TF_PACKAGE = "tf-nightly"
else:
    TF_PACKAGE = 'tensorflow == 2.19.1 ; python_version < "3.13"'

suffix = "-cpu" if "--cpu" in sys.argv else ""

setup(
    name="demo",
    install_requires=REQUIRED,
    extras_require={
        "tf": [TF_PACKAGE],
        "cpu": ["tensorflow" + suffix],
        "docs": open("docs/requirements.txt").read().splitlines(),
        "jit": ["numba\u003e=0.51"],
    },
    python_requires=">=3.10",
)
