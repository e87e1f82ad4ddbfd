"""Tests that patch a package's internals, by name and by object."""

from unittest import mock

import pytest
import numba.core.dispatcher
from numba.core import config


@mock.patch("numba.core.dispatcher.Dispatcher._compile_for_args")
def test_compile_is_patched(compile_for_args):
    numba.core.dispatcher.Dispatcher._compile_for_args.assert_not_called()


def test_disable_jit(monkeypatch):
    monkeypatch.setattr("numba.core.config.DISABLE_JIT", True)
    monkeypatch.setattr(config, "NUMBA_NUM_THREADS", 1)
    with mock.patch.object(numba.core.dispatcher.Dispatcher, "_cache_hits", {}):
        pass
    with mock.patch.multiple("numba.core.config", DEBUG=True, DUMP_IR=False):
        pass


class TestTarget:
    @pytest.fixture(autouse=True)
    def _target(self, mocker):
        mocker.patch("numba.core.registry.cpu_target.target_context")
        delattr(config, "_unused")
