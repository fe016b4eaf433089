"""French: « vendredi 27 novembre 2026, 17:00 », the English shape in French words (the
package's docstring says why one shape)."""

DATE_FORMAT = "l j F Y"
DATETIME_FORMAT = "l j F Y, H:i"
TIME_FORMAT = "H:i"
