"""``python -m studies.tuned_sets``: run the study (its options: ``--help``)."""

from studies.tuned_sets import main

main()
