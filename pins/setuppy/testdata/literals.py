# String literals as setup() reads them: which are pins, which are reported
# and left alone, which are skipped with the reason.
from setuptools import setup

setup(
    name="demo",
    install_requires=[
        "numba>=0.58,<=0.66.0",           # double quotes
        'llvmlite >= 0.41, < 0.44',       # single quotes, spaces
        """jax<=0.4.30""",                # triple quotes on one line
        r"jaxlib<=0.4.30",                # a raw string without backslashes
        u"protobuf>=3.20,<5",             # the u prefix
        "tensorflow[and-cuda]>=2.16,<2.17; sys_platform == 'linux'",
        "numpy",                          # no specifier: one is inserted
        "scipy @ https://example.invalid/scipy.whl",
        "pandas\x3e=2",                   # an escape: reported, not edited
        "dask" ">=2024.1",                # implicit concatenation: reported
        """xarray
        >=2024.1""",                      # over several lines: skipped
        b"h5py",                          # bytes: skipped
        f"zarr>={2}",                     # an f-string: skipped
        "not a requirement!",             # not PEP 508: skipped
        "",                               # blank: setuptools ignores it
    ],
    tests_require=("pytest>=8", "hypothesis"),
    setup_requires={"cython<4"},
    python_requires=">=3.10",
)
