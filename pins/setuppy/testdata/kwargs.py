# setup(**kwargs) with a dict built in a function, as numpy-style setup.py
# files do; names resolve in the function first, then in the module.
import setuptools as st

EXTRAS = dict(jit=["numba>=0.58,<=0.66.0"], tf=["tensorflow>=2.16,<=2.19.1"])
EXTRAS["jax"] = ["jax<=0.4.30", "jaxlib<=0.4.30"]
EXTRAS.update({"proto": ["protobuf<6"]}, llvm=["llvmlite<0.44"])
EXTRAS[":python_version < '3.11'"] = ["tomli>=1.1"]
EXTRAS["all"] = sum(EXTRAS.values(), [])
BASE = ["numpy>=1.22"]


def setup_package():
    base = ["scipy>=1.10"]
    metadata = dict(
        name="demo",
        install_requires=BASE + base,
        extras_require=EXTRAS,
    )
    metadata["tests_require"] = ["pytest>=8"]
    st.setup(**metadata)


if __name__ == "__main__":
    setup_package()
