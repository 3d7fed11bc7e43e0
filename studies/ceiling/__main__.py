"""``python -m studies.ceiling``: run the study (its options: ``--help``)."""

from studies.ceiling.cli import main

main()
