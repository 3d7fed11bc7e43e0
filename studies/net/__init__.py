"""The network `net` and `mc` searching with it, against fixed opponents on held-out deals.

Run: ``nice -n 5 python -m studies.net --table eaai --deals 500 --opponents "simple|tuned@eaai"
mc net mc:leaf=4 mc:leaf=4,net=2 tuned@eaai`` and ``... --table three-handed --deals 334
--opponents "discard-tracking|tuned" mc net mc:leaf=4 mc:leaf=4,net=2`` (seed 90210, the
training's evaluation seed: no choice was made on it). Each player takes every seat in turn
against the opponent in the others (mirrored), on the same deals for every player (paired);
the win rate and its 95% interval are over deals (a deal's games are played together, so not
independent), and every player is compared with the first, deal by deal. The same
measurement ``ginbox train`` makes each round (``sim.learn.loop.strength_chunk``); results go
to ``results/net/<table>.json`` (written atomically): the rows and every deal's wins.
"""
