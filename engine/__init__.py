"""Matrix Hockey's rules as a pure-Python library (standard library only).

The site, the Celery jobs, the command line (``python -m engine``) and the tests all score games
through this package, so a rule lives here and nowhere else. Rulings (R1…) refer to
``shared/RULINGS.md``.
"""
