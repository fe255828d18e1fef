"""A recording is strict JSON Lines (json.org has no NaN or Infinity): the Recorder refuses a non-finite
value rather than write a line other readers reject; a step mark (``end``/``alive``) that is not a step
number is refused by load_recording with the file and the line named."""

import json
import math

import pytest

from sim import api
from sim.run.recording import Recorder, RecordingError, load_recording
from sim.run.scenario import load


def _strict(text):
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_the_recorder_writes_no_non_finite_number(tmp_path, bad):
    path = tmp_path / "r.jsonl"
    recorder = Recorder(path, load("default"))
    with pytest.raises(ValueError):
        recorder.input(3, "torque", (bad, 0.0, 0.0))
    recorder.close(5)
    lines = path.read_text().splitlines()
    assert [_strict(line) for line in lines][-1] == {"end": 5}  # every line is strict JSON


@pytest.mark.parametrize("mark", ['{"end": -1}', '{"alive": 2.5}', '{"end": "ten"}'])
def test_a_bad_step_mark_names_the_file_and_line(tmp_path, mark):
    path = tmp_path / "r.jsonl"
    api.record("default", path, duration=0.01)
    lines = path.read_text().splitlines()
    lines.insert(1, mark)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordingError) as caught:
        load_recording(path)
    text = str(caught.value)
    assert str(path) in text and "line 2" in text


def test_an_unknown_ensemble_field_is_refused_naming_it_and_every_field_there_is(tmp_path):
    # an ensemble input of a later version (or a typo by hand) names its line, the field and the fields known,
    # so the user can mend the file: EnsembleSpec's fields, written out here in alphabetical order
    path = tmp_path / "r.jsonl"
    Recorder(path, load("default")).close(10)
    lines = path.read_text().splitlines()
    lines.insert(1, json.dumps({"step": 3, "key": "ensemble", "value": {"bodies": 10, "colour": "red"}}))
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordingError) as caught:
        load_recording(path)
    assert str(caught.value) == (
        f"{path}, line 2: ensemble: unknown field 'colour' (known: attitudes, bodies, detumble_deg_s, epoch_spread, "
        "gains_grid, inertia_spread, orbit_spread, rate_spread, seed, settle_deg)")
