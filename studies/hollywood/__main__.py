"""``python -m studies.hollywood``: run the study (its options: ``--help``)."""

from studies.hollywood import main

main()
