"""The tests that must share a worker do (tests/conftest.py, worker_group): a test of a
module-scoped fixture runs on the worker of its module's group, so the fixture is made once
and the tests that edit one page in turn keep their order. pytest-xdist sends a group to one
worker by the group's name in each test's id; with pytest 9.2 and xdist 3.8 the name is no
longer added (pytest-dev/pytest-xdist#1386), and the groups were split without a word."""
from __future__ import annotations

import os

import pytest

MADE: list[int] = []


@pytest.fixture(scope="module")
def made_once() -> int:
    MADE.append(os.getpid())
    return len(MADE)


@pytest.mark.parametrize("k", range(4))
def test_the_tests_of_a_module_fixture_are_one_group_run_by_one_worker(request, made_once, k):
    assert request.node.get_closest_marker("xdist_group") is not None
    if os.environ.get("PYTEST_XDIST_WORKER"):       # (a run without workers has no groups to send)
        assert request.node.nodeid.endswith("@test_xdist_groups.py"), (
            f"{request.node.nodeid}: pytest-xdist did not name its group, so the group's tests "
            "run on any worker (pytest-dev/pytest-xdist#1386: pytest 9.2 with xdist 3.8; "
            "`bash .ci/setup` installs the test extra, which pins pytest below 9.2)")
    assert made_once == 1 and MADE == [os.getpid()]
