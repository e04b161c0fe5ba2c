#!/usr/bin/env python3
# policy: OL2M
# repo: https://github.com/criteo-research/logistic_bandit
# commit: d5e8aa2ce94020f449d6abd80aebfef1abe55107
# quirks: reset() starts at θ ~ N(0, I) (np.random): θ_1 = 0, as Zhang et al. (2016) and eofd start
# quirks: learn() rescales every step onto the sphere ‖θ‖ = S: the exact V_{t+1}-norm projection onto the ball, only when the step leaves it (Zhang et al. 2016, eq. (6))
# quirks: λ = dim is hard-coded (self.l2reg): set to the λ eofd ran with
"""Plays OL2M of criteo-research/logistic_bandit (logbexp/algorithms/ol2m.py) on an eofd trace."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _arms import project_onto_ball  # noqa: E402
from _trace import load, play  # noqa: E402

trace, params = load()
from logbexp.algorithms.ol2m import Ol2m  # noqa: E402
from logbexp.utils.utils import sigmoid  # noqa: E402

p = params['params']
algo = Ol2m(param_norm_ub=p['S'], arm_norm_ub=1.0, dim=trace['d'], failure_level=p['delta'])
algo.l2reg = p['lambda']
algo.v_matrix = algo.l2reg * np.eye(algo.dim)
algo.v_matrix_inv = np.eye(algo.dim) / algo.l2reg
algo.theta = np.zeros(algo.dim)


def learn(x, y):
    step = algo.theta - algo.v_matrix_inv @ ((sigmoid(x @ algo.theta) - y) * x)
    algo.theta = project_onto_ball(algo.v_matrix, step, algo.param_norm_ub)


def choose(actions, t):
    algo.ctr = t
    algo.update_ucb_bonus()
    values = [algo.compute_optimistic_reward(a) for a in actions]
    a = int(np.argmax(values))
    x = actions[a]
    # pull()'s design-matrix update, as ol2m.py writes it (before learn)
    algo.v_matrix += (algo.beta / 2) * np.outer(x, x)
    algo.v_matrix_inv -= (algo.beta / 2) * algo.v_matrix_inv @ np.outer(x, x) @ algo.v_matrix_inv / (1 + (algo.beta / 2) * x @ algo.v_matrix_inv @ x)
    return a


play(trace, choose, learn)
