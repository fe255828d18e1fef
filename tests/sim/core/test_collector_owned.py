"""One thread collects (sim/core/collector.py: own_collection, collect_due, release_collection).

A window owns the collector so that every collection runs in its GUI thread: a collection destroys what it finds
unreachable in the thread that runs it, Qt objects included (docs/RELIABILITY.md, "Garbage collected in the GUI
thread").  The oracle for *when* it collects is CPython's own automatic collector, run on the same allocations.
These run in the test process (mutants of sim.core.collector run only here) and leave the collector as found.
"""

import gc
import threading
import weakref

import pytest

from sim.core.collector import collect_due, collector_held, own_collection, release_collection


class _Cycle:
    """An object in a reference cycle with itself: only a collection frees it."""

    def __init__(self):
        self.me = self


@pytest.fixture
def thresholds():
    """Set the collector's thresholds for a test; the old ones, an enabled collector and no owner after."""
    old = gc.get_threshold()
    assert gc.isenabled()
    yield gc.set_threshold
    gc.set_threshold(*old)
    assert gc.isenabled(), "a test left the collector owned or off"


def _collections(body):
    """The generations collected while ``body()`` runs, with the name of the thread that collected each."""
    seen = []

    def note(phase, info):
        if phase == "start":
            seen.append((info["generation"], threading.current_thread().name))

    gc.collect()
    gc.callbacks.append(note)
    try:
        body()
    finally:
        gc.callbacks.remove(note)
    return seen


def _garbage(n, after=None):
    """``n`` cycles made and dropped, one at a time (``after()`` called after each)."""
    for _ in range(n):
        _Cycle()
        if after is not None:
            after()


def test_owned_the_collector_collects_only_in_the_owners_thread_and_frees_the_garbage(thresholds):
    thresholds(100, 10, 10)
    own_collection()
    try:
        assert not gc.isenabled()
        kept = []

        def other_thread():
            for _ in range(5000):
                kept.append(weakref.ref(_Cycle()))

        def both():
            thread = threading.Thread(target=other_thread, name="simulation")
            thread.start()
            thread.join()
            for _ in range(10):  # each a collection due, until none is (a few)
                if collect_due() < 0:
                    break

        seen = _collections(both)
    finally:
        release_collection()
    assert seen and all(name == threading.main_thread().name for _, name in seen)  # none in "simulation"
    assert sum(ref() is None for ref in kept) > 4500     # the other thread's garbage, freed by the owner's collections
    assert gc.isenabled()                                 # released: automatic again


def _counted(young: int, middle: int, t0: int) -> None:
    """The collector's counts made ``(> t0, young, middle)``, automatic collection off: ``middle`` middle and then
    ``young`` young collections asked for after a full one, then ``t0 + 1`` cycles made and dropped."""
    gc.disable()
    gc.collect()
    for _ in range(middle):
        gc.collect(1)
    for _ in range(young):
        gc.collect(0)
    _garbage(t0 + 1)


def _automatic_choice(young: int, middle: int, t0: int) -> int:
    """The generation CPython's automatic collector collects from those counts at the next allocations."""
    _counted(young, middle, t0)
    seen = []
    note = lambda phase, info: phase == "start" and seen.append(info["generation"])  # noqa: E731
    gc.callbacks.append(note)
    gc.enable()
    try:
        for _ in range(100):
            _Cycle()
            if seen:
                break
    finally:
        gc.disable()
        gc.callbacks.remove(note)
        gc.enable()
    return seen[0]


@pytest.mark.parametrize("young", [0, 3, 4])
@pytest.mark.parametrize("middle", [0, 2, 5])
def test_collect_due_chooses_the_generation_cpythons_automatic_collector_chooses(thresholds, young, middle):
    """From the same counts (young and middle collections since the older ones, the young count past its
    threshold), ``collect_due`` collects the generation CPython's own automatic collector collects.  The middle
    count stays at its threshold or under: a full collection due is CPython's to skip (its long-lived rule), the next
    test's."""
    thresholds(10, 3, 5)
    expected = _automatic_choice(young, middle, 10)
    assert expected == (1 if young > 3 else 0)  # the oracle read as CPython's gc_collect_generations says
    own_collection()
    try:
        _counted(young, middle, 10)
        assert collect_due() == expected
    finally:
        release_collection()


def test_collect_due_collects_the_oldest_generation_whose_count_is_due(thresholds):
    thresholds(50, 2, 2)
    own_collection()
    try:
        owned = _collections(lambda: _garbage(2000, collect_due))
    finally:
        release_collection()
    generations = [g for g, _ in owned]
    # young, young, young, middle (its count 3 > 2), ..., and after three middle collections a full one
    assert generations[:12] == [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
    assert generations[12] == 2 and generations.count(2) >= 3


def test_nothing_is_due_before_the_young_count_passes_its_threshold_nor_with_collection_switched_off(thresholds):
    """As CPython: no collection while the young count is under its threshold (here far under, and above the
    middle generation's threshold), and none at all with a young threshold of 0 (``gc.set_threshold(0)``)."""
    thresholds(1000, 3, 5)
    own_collection()
    try:
        gc.collect()
        _garbage(500)
        assert collect_due() == -1
        thresholds(0, 3, 5)
        _garbage(2000)
        assert collect_due() == -1
    finally:
        release_collection()


def test_nothing_is_collected_unowned_or_while_a_load_holds_the_collector(thresholds):
    thresholds(50, 10, 10)
    gc.collect()
    _garbage(200)
    assert collect_due() == -1                 # not owned: the automatic collector's business
    own_collection()
    try:
        with collector_held():
            _garbage(200)
            assert collect_due() == -1         # a load holds it (sim.core.jit): no pause during the load
        assert not gc.isenabled()              # the hold ended; the owner still owns it: off
        _garbage(200)
        assert collect_due() >= 0              # and the owner collects again
    finally:
        release_collection()
        gc.unfreeze()                          # what the hold froze
    assert gc.isenabled()


def test_an_owner_that_begins_inside_a_load_keeps_the_collector_off_after_the_load(thresholds):
    loaded, release = threading.Event(), threading.Event()

    def load():
        with collector_held():
            loaded.set()
            release.wait()

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    assert loaded.wait(30)
    own_collection()
    try:
        release.set()
        thread.join(30)
        assert not gc.isenabled()              # the load ended first: still owned
    finally:
        release_collection()
        gc.unfreeze()
    assert gc.isenabled()                      # as it was before the first of them


def test_two_owners_release_it_once_both_are_done_and_an_extra_release_is_an_error(thresholds):
    own_collection()
    own_collection()
    release_collection()
    assert not gc.isenabled()
    release_collection()
    assert gc.isenabled()
    with pytest.raises(RuntimeError, match="^release_collection without own_collection$"):
        release_collection()
