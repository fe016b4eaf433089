"""How the site writes a date and a moment, one shape per language (Django's
``FORMAT_MODULE_PATH``): every page, email and admin page names these formats
(``|date:"DATETIME_FORMAT"``, ``|date:"DATE_FORMAT"``, ``date_format(…)``), never a pattern of
its own, and ``static/js/countdown.js`` writes the visitor's own time in the same shape.

A moment: the weekday, the day, the month, the year and the time on 24 hours, « Friday 27
November 2026, 17:00 », « vendredi 27 novembre 2026, 17:00 »; a date alone, the same without its
time. Only output formats are set here: the forms read what Django's own modules accept."""
