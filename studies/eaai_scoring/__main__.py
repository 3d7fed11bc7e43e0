"""``python -m studies.eaai_scoring``: run the study (its options: ``--help``)."""

from studies.eaai_scoring import main

main()
