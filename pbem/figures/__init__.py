"""Figures from counts, shared by ``pbem balance`` (simulated games) and ``pbem stats``
(played games' records): the Wilson interval (:mod:`.wilson`) and SVG charts drawn in Python,
no plotting library and no JavaScript (:mod:`.charts`). Pure; imports nothing of pbem."""
