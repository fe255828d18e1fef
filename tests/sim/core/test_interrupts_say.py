"""What a compile says at the terminal (sim.core.interrupts.say): a line on the stream given, on stderr for None,
and nothing at all for False (a quiet run: ``load_all(stream=False)``, the window)."""

import io

from sim.core.interrupts import say


def test_say_writes_one_line_to_the_stream_stderr_for_none_and_nothing_for_false(capsys):
    stream = io.StringIO()
    say(stream, "attitude-sim: compiling")
    assert stream.getvalue() == "attitude-sim: compiling\n"
    say(None, "to stderr")
    say(False, "never shown")
    out, err = capsys.readouterr()
    assert out == "" and err == "to stderr\n"
