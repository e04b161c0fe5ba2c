#!/usr/bin/env python3
# policy: GLM-UCB
# repo: https://github.com/criteo-research/logistic_bandit
# commit: d5e8aa2ce94020f449d6abd80aebfef1abe55107
# quirks: λ = dim is hard-coded (glm_ucb.py line 47, self.l2reg): set to the λ eofd ran with, and V_1 = λI with it
# quirks: learn() runs 5 undamped Newton steps a round (line 82): learn() is run again on the same data (the round's arm and reward popped first) until ‖∇‖ ≤ 1e-12·(1 + Σ‖x_s‖), eofd's tolerance
# quirks: learn() refits only every 5th round after round 200 (line 79, lazy_update_fr = 5): built with lazy_update_fr = 1
# quirks: __init__ starts from θ̂, θ̃ ~ N(0, I) (np.random, lines 50-51): θ̂_1 = θ̃_1 = 0, the regularised MLE of no data
# quirks: the projection step is off by default (do_proj = False) and left off (eofd does not take it either)
# quirks: ArmSet.argmax takes the first exact maximum: the adapter's arm set takes eofd's tie rule (within 1e-12 relative, lowest index)
"""Plays GLM-UCB of criteo-research/logistic_bandit (logbexp/algorithms/glm_ucb.py) on an eofd trace."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _arms import RoundArms, radius_as_run  # noqa: E402
from _trace import load, play  # noqa: E402

trace, params = load()
from logbexp.algorithms.glm_ucb import GlmUCB  # noqa: E402
from logbexp.utils.utils import sigmoid  # noqa: E402

p = params['params']
#: eofd's stopping rule for the MLE (src/policies/kit/mle.ts MLE_TOLERANCE).
TOLERANCE = 1e-12
#: learn() calls a round at most (5 Newton steps each).
MAX_CALLS = 40


class AsRunGlmUCB(GlmUCB):
    def update_ucb_bonus(self):
        super().update_ucb_bonus()
        self.ucb_bonus = radius_as_run(self.ucb_bonus, p)


algo = AsRunGlmUCB(param_norm_ub=p['S'], arm_norm_ub=params['derived']['D'], dim=trace['d'], failure_level=p['delta'],
                   do_proj=False, lazy_update_fr=1)
algo.l2reg = p['lambda']
algo.design_matrix = algo.l2reg * np.eye(algo.dim)
algo.design_matrix_inv = np.eye(algo.dim) / algo.l2reg
algo.theta_hat = np.zeros(algo.dim)
algo.theta_tilde = np.zeros(algo.dim)
scale = [1.0]  # 1 + Σ_s ‖x_s‖


def gradient_norm():
    """‖λθ̂ + Σ_s (σ(θ̂ᵀx_s) − y_s) x_s‖ (glm_ucb.py line 85's gradient, only measured here)."""
    X = np.asarray(algo.arms)
    g = algo.l2reg * algo.theta_hat + X.T @ (sigmoid(X @ algo.theta_hat) - np.asarray(algo.rewards))
    return np.linalg.norm(g)


def learn(x, y):
    scale[0] += np.linalg.norm(x)
    algo.learn(x, y)
    for _ in range(MAX_CALLS - 1):
        if gradient_norm() <= TOLERANCE * scale[0]:
            return
        algo.arms.pop()
        algo.rewards.pop()
        algo.ctr -= 1
        algo.learn(x, y)
    if gradient_norm() > TOLERANCE * scale[0]:
        sys.exit(f'glm-ucb.py: their Newton steps did not reach ‖∇‖ ≤ {TOLERANCE}·{scale[0]:.3g} in {5 * MAX_CALLS} steps (round {len(algo.rewards)}: {gradient_norm():.3g})')


def choose(actions, t):
    arms = RoundArms(actions)
    algo.pull(arms)
    return arms.chosen


play(trace, choose, learn)
