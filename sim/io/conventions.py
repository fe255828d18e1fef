"""Quaternion conventions at the edge: the one place that turns this project's Q into another tool's.

Inside the simulator there is one convention (README "Conventions"):
``Q = (q1, q2, q3, q4)``, the scalar ``q4`` LAST; ``Q`` is the coordinate
transformation inertial -> body, ``x_B = C(Q) x_I`` with ``C`` Hoffmann's
(2.12) (:func:`sim.core.quaternion.cayley`); the product is Hoffmann's (1.7),
which is Hamilton's (``i j = k``; the vector part of ``Q . S`` is
``q4 s + s4 q + q x s``), so ``C(Q . S) = C(Q) C(S)``.

What a file, a CSV column or an API result may hold instead is described by
a :class:`Convention`: the order (``scalar-last`` or ``scalar-first``) and the
direction (``inertial-to-body``: this project's Q; ``body-to-inertial``: its
conjugate ``Q' = (-q1, -q2, -q3, q4)``, the transformation body -> inertial
under the same formula ``x_I = C(Q') x_B``).  Only the writers and readers
convert (:func:`table_converter`, :func:`to_convention`,
:func:`from_convention`); no formula inside ``sim`` ever sees another
convention.

Columns: a quaternion written scalar last keeps its names ``q1, q2, q3, q4``;
scalar first it is written ``q0, q1, q2, q3`` with ``q0`` the scalar (this
project's ``q4``), so ``q1..q3`` name the same vector part in both orders.
The command quaternion ``qc1..qc4``, the estimate ``qe1..qe4`` and a comparison body's
``<label>:q1..q4`` follow the same rule.  docs/CONVENTIONS.md has the table
of what other tools use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ORDERS", "DIRECTIONS", "Convention", "NATIVE", "to_convention", "from_convention",
           "quaternion_groups", "table_converter", "convert_result"]

#: The orders a quaternion may be written in: this project's first.
ORDERS = ("scalar-last", "scalar-first")
#: The directions: this project's (``x_B = C(Q) x_I``) first; the other is its conjugate.
DIRECTIONS = ("inertial-to-body", "body-to-inertial")


@dataclass(frozen=True)
class Convention:
    """How quaternions are written: ``order`` (:data:`ORDERS`) and ``direction`` (:data:`DIRECTIONS`)."""

    order: str = "scalar-last"
    direction: str = "inertial-to-body"

    def __post_init__(self):
        if self.order not in ORDERS:
            raise ValueError(f"quaternion order must be one of {', '.join(ORDERS)}, got {self.order!r}")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {self.direction!r}")

    @property
    def native(self) -> bool:
        """True for this project's own convention (nothing to convert)."""
        return self == NATIVE

    def describe(self) -> str:
        """In words, for messages: ``"scalar-first, body-to-inertial"``."""
        return f"{self.order}, {self.direction}"


#: This project's convention (Hoffmann): scalar last, inertial -> body.
NATIVE = Convention()


def to_convention(q, convention: Convention) -> np.ndarray:
    """This project's quaternion(s) ``q`` (shape (..., 4), scalar last, inertial -> body) written in ``convention``.

    ``body-to-inertial`` conjugates (the vector part changes sign);
    ``scalar-first`` moves the scalar to the front.  Returns a new array.
    """
    a = np.array(q, dtype=float)
    if a.shape[-1:] != (4,):
        raise ValueError(f"a quaternion has 4 components, got shape {a.shape}")
    if convention.direction == "body-to-inertial":
        a[..., :3] *= -1.0
    if convention.order == "scalar-first":
        a = np.concatenate([a[..., 3:], a[..., :3]], axis=-1)
    return a


def from_convention(q, convention: Convention) -> np.ndarray:
    """Quaternion(s) written in ``convention`` back in this project's: the inverse of :func:`to_convention`."""
    a = np.array(q, dtype=float)
    if a.shape[-1:] != (4,):
        raise ValueError(f"a quaternion has 4 components, got shape {a.shape}")
    if convention.order == "scalar-first":
        a = np.concatenate([a[..., 1:], a[..., :1]], axis=-1)
    if convention.direction == "body-to-inertial":
        a[..., :3] *= -1.0
    return a


def quaternion_groups(names) -> list:
    """The quaternions among column ``names``: the index of each one's ``<prefix>1..4`` columns, in order.

    A prefix is ``q``, ``qc`` or ``qe`` (the estimate, issue 33), optionally after a comparison body's
    ``<label>:``; all four columns must be present.
    """
    index = {name: k for k, name in enumerate(names)}
    groups = []
    for name in names:
        if not name.endswith("1"):
            continue
        prefix = name[:-1]
        if prefix.rsplit(":", 1)[-1] not in ("q", "qc", "qe"):
            continue
        members = [prefix + str(i) for i in range(1, 5)]
        if all(m in index for m in members):
            groups.append((prefix, [index[m] for m in members]))
    return groups


def table_converter(names, convention: Convention):
    """Column names and a row function that write a table of ``names`` in ``convention``.

    Returns ``(new_names, convert)``: ``convert(row)`` takes a row (a
    sequence in ``names`` order) and returns a tuple in ``new_names`` order.
    Every quaternion group (:func:`quaternion_groups`) is converted with
    :func:`to_convention`'s rule; other columns are left as they are.  For
    the native convention, ``convert`` returns the row unchanged.
    """
    names = tuple(names)
    if convention.native:
        return names, tuple
    order = list(range(len(names)))
    new_names = list(names)
    negate = []
    for prefix, (i1, i2, i3, i4) in quaternion_groups(names):
        if convention.direction == "body-to-inertial":
            negate += [i1, i2, i3]
        if convention.order == "scalar-first":
            # the four slots take the scalar first: q0 (was q4), q1, q2, q3
            order[i1], order[i2], order[i3], order[i4] = i4, i1, i2, i3
            new_names[i1], new_names[i2], new_names[i3], new_names[i4] = (prefix + "0", prefix + "1", prefix + "2",
                                                                           prefix + "3")
    negate = frozenset(negate)

    def convert(row):
        return tuple(-row[j] if j in negate else row[j] for j in order)

    return tuple(new_names), convert


def convert_result(result: dict, convention: Convention) -> dict:
    """A dict of columns (an API result) written in ``convention`` (new dict; the columns not quaternions shared)."""
    names = tuple(result)
    if convention.native:
        return dict(result)
    new_names, _ = table_converter(names, convention)
    out = {}
    groups = {i: (prefix, idx) for prefix, idx in quaternion_groups(names) for i in idx}
    columns = [result[n] for n in names]
    for k, name in enumerate(new_names):
        if k not in groups:
            out[name] = columns[k]
            continue
        _, idx = groups[k]
        block = np.stack([np.asarray(columns[i], dtype=float) for i in idx], axis=-1)
        converted = to_convention(block, convention)
        out[name] = converted[..., idx.index(k)]
    return out
