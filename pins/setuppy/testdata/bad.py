from setuptools import setup
print "numba<=0.66.0"
setup(install_requires=["numba<=0.66.0"])
