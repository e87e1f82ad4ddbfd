from setuptools import setup

setup(
    install_requires=[
        "numba>=0.58,<=0.66.0",
        "tensorflow>=2.16",
    ],
)
