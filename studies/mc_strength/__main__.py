"""``python -m studies.mc_strength``: run the study (its options: ``--help``)."""

from studies.mc_strength import main

main()
