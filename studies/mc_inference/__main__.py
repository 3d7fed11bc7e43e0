"""``python -m studies.mc_inference``: run the study (its options: ``--help``)."""

from studies.mc_inference import main

main()
