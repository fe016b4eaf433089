"""English: « Friday 27 November 2026, 17:00 » (the package's docstring says why one shape)."""

DATE_FORMAT = "l j F Y"
DATETIME_FORMAT = "l j F Y, H:i"
TIME_FORMAT = "H:i"
