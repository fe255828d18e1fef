"""The window's Ensemble view: N bodies flying the main body's inputs, drawn at once.

===============================  ==============================================================
:mod:`app.ensemble.view`         the Ensemble tab and its menu action, bound to the worker
:mod:`app.ensemble.scene`        the sphere of nose directions (a GL scene)
:mod:`app.ensemble.histogram`    the histogram of attitude errors, the colours' legend
:mod:`app.ensemble.colors`       the colour scale of attitude errors (no Qt)
===============================  ==============================================================
"""
