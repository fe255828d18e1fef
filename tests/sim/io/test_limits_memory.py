"""sim.io.limits' view of the machine: the room under a cgroup v2 memory limit (memory.max less
memory.current, inf without a limit), free pages when /proc/meminfo says nothing, the memory refusal's
figure of what is available, and least_seconds as the least of three timings by default."""

import io
import math
import os
from types import SimpleNamespace

import pytest

from sim.io import limits

CGROUP = "0::/user.slice/run-1.scope\n"
FOLDER = "/sys/fs/cgroup/user.slice/run-1.scope"


def _files(monkeypatch, contents):
    def fake_open(path, *args, **kwargs):
        try:
            return io.StringIO(contents[os.fspath(path)])
        except KeyError:
            raise FileNotFoundError(2, "No such file or directory", path) from None

    monkeypatch.setattr(limits, "open", fake_open, raising=False)  # the module's open, not the builtin


@pytest.mark.parametrize("contents, room", [
    ({"/proc/self/cgroup": CGROUP, f"{FOLDER}/memory.max": "1000000\n", f"{FOLDER}/memory.current": "400000\n"},
     600_000),
    ({"/proc/self/cgroup": CGROUP, f"{FOLDER}/memory.max": "1000000\n", f"{FOLDER}/memory.current": "1200000\n"},
     0.0),  # over its limit already: no room, never a negative one
    ({"/proc/self/cgroup": CGROUP, f"{FOLDER}/memory.max": "max\n"}, math.inf),  # no limit
    ({"/proc/self/cgroup": "1:cpu:/\n"}, math.inf),  # cgroup v1 only
    ({}, math.inf),  # no /proc
])
def test_the_room_under_a_cgroup_limit(monkeypatch, contents, room):
    _files(monkeypatch, contents)
    assert limits._cgroup_room() == room


def test_without_meminfo_the_free_pages_are_the_room(monkeypatch):
    pages = {"SC_AVPHYS_PAGES": 1000, "SC_PAGE_SIZE": 4096}

    def sysconf(name):
        if name not in pages:
            raise ValueError("unrecognized configuration name")
        return pages[name]

    monkeypatch.setattr(limits, "_meminfo", dict)
    monkeypatch.setattr(limits, "_cgroup_room", lambda: math.inf)
    monkeypatch.setattr(os, "sysconf", sysconf)
    assert limits.available_memory() == 1000 * 4096


def test_a_memory_refusal_states_what_the_machine_has(monkeypatch):
    monkeypatch.setattr(limits, "available_memory", lambda: 3 * 2**30)
    with pytest.raises(limits.RunTooLong) as caught:
        limits.check_cost("a big run", memory=2**40)
    text = str(caught.value)
    assert "a big run" in text and "1 TiB" in text
    assert "(3 GiB available)" in text


def test_least_seconds_is_the_least_of_three_timings_by_default(monkeypatch):
    clock = iter([0.0, 5.0, 10.0, 12.0, 20.0, 27.0, 30.0, 31.0])  # timings 5, 2, 7, then a 4th of 1
    monkeypatch.setattr(limits, "time", SimpleNamespace(perf_counter=lambda: next(clock)))  # limits' clock only
    calls = []
    assert limits.least_seconds(lambda: calls.append(1)) == 2.0
    assert len(calls) == 3


@pytest.mark.parametrize("soft, pages, room", [
    (10_000_000, 1000, 10_000_000 - 1000 * 4096),  # ulimit -v less what the process has mapped (statm's size)
    (10_000_000, 5000, 0.0),  # mapped past its limit already: no room, never a negative one
    (None, 1000, math.inf),  # no limit
])
def test_the_room_under_an_address_space_limit(monkeypatch, soft, pages, room):
    import resource

    soft = resource.RLIM_INFINITY if soft is None else soft
    monkeypatch.setattr(resource, "getrlimit", lambda which: (soft, resource.RLIM_INFINITY))
    _files(monkeypatch, {"/proc/self/statm": f"{pages} 300 200 10 0 400 0\n"})
    real = os.sysconf
    monkeypatch.setattr(os, "sysconf", lambda name: 4096 if name == "SC_PAGE_SIZE" else real(name))
    assert limits._address_room() == room
