# Statements that add to a requirement list.
import sys

from distutils.core import setup

install_requires = ["numpy>=1.22"]
install_requires.append("numba>=0.58,<=0.66.0")
install_requires += ["llvmlite<0.44"]
if sys.platform == "linux":
    install_requires.extend(["jax<=0.4.30", "jaxlib<=0.4.30"])
install_requires.insert(0, "protobuf<6")
install_requires.append(sys.argv[1])

tf = "tensorflow"
tf += ">=2.16"

setup(install_requires=install_requires, extras_require={"tf": [tf]})
