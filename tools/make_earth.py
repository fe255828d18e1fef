"""Bake the Earth's land map of the orbit view: ``assets/earth/land.npz``.

Source: the land/sea mask of the ``global-land-mask`` package (Todd Karin,
MIT licence; PyPI, version 1.0.0), which is the GLOBE 1-km digital elevation
model of NOAA's National Geophysical Data Center (public domain) with its
"ocean" cells marked: 21,600 x 43,200 cells of 1/120 deg.  The package loads
the whole mask when imported (about 15 s and 0.9 GB here), far too much for
the window, so this tool averages it once into cells of :data:`CELL_DEG`
and stores the land fraction of each cell as a byte (0 sea, 255 land):
360 x 720 bytes, compressed.  Rows run from the north (latitude +90) to the
south, columns eastward from longitude -180: ``land[i, j]`` covers
latitudes ``90 - CELL_DEG (i + 1)`` to ``90 - CELL_DEG i`` and longitudes
``-180 + CELL_DEG j`` to ``-180 + CELL_DEG (j + 1)``.

Run ``python -m tools.make_earth`` from the checkout, with the ``tools`` extra
installed (``pip install -e .[tools]``).  The window reads the baked file only
(:mod:`app.view3d.earth`); nothing is downloaded at run time.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: The size of a baked cell, degrees.
CELL_DEG = 0.5
#: Where the baked map goes.
OUTPUT = Path(__file__).resolve().parent.parent / "assets" / "earth" / "land.npz"


def bake(path: Path = OUTPUT) -> Path:
    """Average the package's mask into cells of :data:`CELL_DEG` and write them to ``path``."""
    from global_land_mask import globe  # 0.9 GB in memory: only when baking

    ocean = globe._mask  # (21600, 43200) True on the sea; rows from lat +90 down, columns from lon -180 east
    lat, lon = globe._lat, globe._lon
    if not (lat[0] > lat[-1] and lon[0] < lon[-1]):
        raise RuntimeError("global-land-mask's axes are not ordered as expected (north to south, west to east)")
    block = round(CELL_DEG / abs(lat[1] - lat[0]))
    rows, cols = ocean.shape[0] // block, ocean.shape[1] // block
    land = np.empty((rows, cols), dtype=np.uint8)
    for i in range(rows):  # a band of rows at a time: the full mask is 0.9 GB already
        band = ~ocean[i * block:(i + 1) * block]
        fraction = band.reshape(block, cols, block).mean(axis=(0, 2))
        land[i] = np.round(255.0 * fraction).astype(np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, land=land, cell_deg=np.float64(CELL_DEG))
    return path


if __name__ == "__main__":
    print(bake())
