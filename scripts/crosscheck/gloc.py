#!/usr/bin/env python3
# policy: GLOC
# repo: https://github.com/criteo-research/logistic_bandit
# commit: d5e8aa2ce94020f449d6abd80aebfef1abe55107
# quirks: λ = dim is hard-coded (gloc.py line 35, self.l2reg): set to the λ eofd ran with, and V_1 = λI, B_1 = 2κS²λ with it
# quirks: learn() rescales every online Newton step onto the sphere ‖θ‖ = S (line 70): the exact V_{t+1}-norm projection onto the ball, only when the step of line 69 leaves it (the online Newton step's projection)
# quirks: pull() scores with the online iterate θ_t (compute_optimistic_reward, line 102) and never uses the centre θ̂_t it computes (line 66): pull() runs with θ̂_t in θ's place, the centre of GLOC's confidence set
# quirks: reset() would start from θ, θ̂ ~ N(0, I) (np.random, lines 51-52): not called; __init__'s zeros are kept
# quirks: ArmSet.argmax takes the first exact maximum: the adapter's arm set takes eofd's tie rule (within 1e-12 relative, lowest index)
"""Plays GLOC of criteo-research/logistic_bandit (logbexp/algorithms/gloc.py) on an eofd trace."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _arms import RoundArms, project_onto_ball, radius_as_run  # noqa: E402
from _trace import load, play  # noqa: E402

trace, params = load()
from logbexp.algorithms.gloc import Gloc  # noqa: E402
from logbexp.utils.utils import sigmoid  # noqa: E402

p = params['params']


class CentredGloc(Gloc):
    def update_ucb_bonus(self):
        super().update_ucb_bonus()
        self.conf_radius = radius_as_run(self.conf_radius, p)

    def pull(self, arm_set):
        # gloc.py's pull (bonus, optimistic argmax, V and V⁻¹ updates) with θ̂ in θ's place.
        online = self.theta
        self.theta = self.theta_hat
        try:
            return super().pull(arm_set)
        finally:
            self.theta = online


algo = CentredGloc(param_norm_ub=p['S'], arm_norm_ub=params['derived']['D'], dim=trace['d'], failure_level=p['delta'])
algo.l2reg = p['lambda']
algo.v_matrix = algo.l2reg * np.eye(algo.dim)
algo.v_matrix_inv = np.eye(algo.dim) / algo.l2reg
algo.oco_regret_bound = 2 * algo.kappa * algo.param_norm_ub ** 2 * algo.l2reg


def learn(x, y):
    online = algo.theta.copy()
    algo.learn(x, y)  # B, z and θ̂ as gloc.py computes them; its θ is rescaled onto the sphere
    # The step of line 69 from the same θ_t, then the projection only when it leaves the ball.
    step = online - algo.v_matrix_inv @ ((sigmoid(x @ online) - y) * x) / algo.kappa
    algo.theta = project_onto_ball(algo.v_matrix, step, algo.param_norm_ub)


def choose(actions, t):
    arms = RoundArms(actions)
    algo.pull(arms)
    return arms.chosen


play(trace, choose, learn)
