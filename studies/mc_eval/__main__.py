"""``python -m studies.mc_eval``: train the evaluator (its options: ``--help``)."""

from studies.mc_eval import main

main()
