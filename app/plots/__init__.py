"""The plots beside the 3D view (pyqtgraph, no OpenGL), and the samples behind them.

=============================  ================================================================
:mod:`app.plots.live`          the live plots: norm, multiplier, angles, rates, torques
:mod:`app.plots.compare`       the comparison bodies' error, energy drift and norm drift
:mod:`app.plots.tabs`          both as tabs
:mod:`app.plots.style`         colours, axes, ranges that hold still, linked zoom
:mod:`app.plots.history`       the bounded store of every sample (no Qt)
:mod:`app.plots.feed`          the simulation's batches into the histories (no Qt)
:mod:`app.plots.decimate`      min/max decimation to pixel columns (no Qt)
=============================  ================================================================
"""
