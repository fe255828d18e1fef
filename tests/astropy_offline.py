"""astropy used offline in tests: no IERS download (UT1 = UTC where it asks, as sim assumes)."""

import warnings

from astropy.utils import iers

iers.conf.auto_download = False
iers.conf.iers_degraded_accuracy = "ignore"
warnings.filterwarnings("ignore", module="erfa")
warnings.filterwarnings("ignore", message=".*dubious year.*")
