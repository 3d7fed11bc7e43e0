"""``python -m studies.oklahoma``: run the study (its options: ``--help``)."""

from studies.oklahoma import main

main()
