"""``python -m studies.skill_scale``: run the study (its options: ``--help``)."""

from studies.skill_scale import main

main()
