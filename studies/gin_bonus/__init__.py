"""Does a 20-point gin bonus change the best play? Two files, played by ginbox itself.

Run ``ginbox tune studies/gin_bonus/tune_tuned_three_handed_20.toml`` (the tune for gin 20,
from the first gin-25 stage of studies/tuned_sets), then ``ginbox run
studies/gin_bonus/gin_bonus_adaptive.toml`` (the tuned plays under both bonuses; its file
spells out the tune's result, so it also runs on its own).
"""
