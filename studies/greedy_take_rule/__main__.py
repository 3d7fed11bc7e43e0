"""``python -m studies.greedy_take_rule``: run the study (its options: ``--help``)."""

from studies.greedy_take_rule import main

main()
