"""``python -m romme``: the command line (see :mod:`romme.cli`)."""

from romme.cli import main

raise SystemExit(main())
