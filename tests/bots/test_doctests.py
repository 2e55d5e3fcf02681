"""The examples in the bots' docstrings run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "romme.bots",
    "romme.bots.hint",
    "romme.bots.analysis",
    "romme.bots.rating",
    "romme.bots.soft_play",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
