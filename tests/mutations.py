"""Valid files mutated a few bytes at a time, for the property tests of the readers (hypothesis).

:func:`mutated` flips, deletes or inserts bytes at random places of a valid
file: what a truncated download, a bad disk or a hand edit leaves.  A reader
must then raise its own error or read the file, never anything else.
"""

from hypothesis import strategies as st


def mutated(raw: bytes, data, most: int, inserts) -> bytes:
    """``raw`` after 1 to ``most`` mutations drawn from ``data`` (hypothesis' ``st.data()``).

    Each mutation, at a place drawn anew: a byte flipped to any value, a byte
    deleted, or one of ``inserts`` (byte strings) inserted.
    """
    out = bytearray(raw)
    for _ in range(data.draw(st.integers(1, most))):
        i = data.draw(st.integers(0, len(out) - 1))
        op = data.draw(st.sampled_from(["flip", "delete", "insert"]))
        if op == "flip":
            out[i] = data.draw(st.integers(0, 255))
        elif op == "delete":
            del out[i]
        else:
            out[i:i] = data.draw(st.sampled_from(list(inserts)))
    return bytes(out)
