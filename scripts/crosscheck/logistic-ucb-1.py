#!/usr/bin/env python3
# policy: Logistic-UCB-1
# repo: https://github.com/criteo-research/logistic_bandit
# commit: d5e8aa2ce94020f449d6abd80aebfef1abe55107
# quirks: __init__ draws θ̂ ~ N(0, I) (np.random, logistic_ucb_1.py line 49), which decides round 1: θ̂_1 = 0, the regularised MLE of no data, as eofd
# quirks: learn() takes five undamped Newton steps (lines 81-87): learn() is called again on the same observation (popped and re-appended) until a call moves θ̂ by ≤ 1e-14·(1 + ‖θ̂‖), i.e. Newton run to convergence, as eofd; ln det H_t stays theirs (the Hessian of their last step)
# quirks: lazy_update_fr = 5 (line 78: after 200 rounds the MLE is refitted every fifth round only): lazy_update_fr = 1
# quirks: λ = dim is hard-coded (lines 45-48, 77: λ_t = dim·ln(2 + n)): λ_1 and the design matrix's λ set to eofd's λ, and dim's product with ln(2 + n) made eofd's λ·ln(2 + n) (an int subclass); d itself (np.eye, χ²_d, (d/2)·ln λ_t) is unchanged
# quirks: arm_norm_ub (κ = 1/μ̇(S·arm_norm_ub), line 52): eofd's D
# quirks: ArmSet.argmax takes the exact maximum, so rounding decides between equal scores (round 1: every unit action scores ½ + ρ/√λ): the first score within 1e-12 (relative) of the best, eofd's tie rule
# quirks: ucb_bonus with eofd's β: 'theory'/'order' keep theirs (times √beta_scale); a numeric β gives √(β·beta_scale)
"""Plays Logistic-UCB-1 of criteo-research/logistic_bandit (logbexp/algorithms/logistic_ucb_1.py) on an eofd trace."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _arms import RoundArms, radius_as_run  # noqa: E402
from _trace import load, play  # noqa: E402

trace, params = load()
from logbexp.algorithms.logistic_ucb_1 import LogisticUCB1  # noqa: E402

p = params['params']
d = trace['d']
lam = float(p['lambda'])


class Dim(int):
    """d, except that d·ln(2 + n) (their λ_t, line 77) is λ·ln(2 + n) with eofd's λ."""

    def __mul__(self, other):
        if isinstance(other, (float, np.floating)):
            return lam * float(other)
        return int.__mul__(self, other)


algo = LogisticUCB1(param_norm_ub=p['S'], arm_norm_ub=params['derived']['D'], dim=d, failure_level=p['delta'], lazy_update_fr=1)
algo.dim = Dim(d)
algo.l2reg = lam
algo.design_matrix = lam * np.eye(d)
algo.design_matrix_inv = np.eye(d) / lam
algo.hessian_matrix = lam * np.eye(d)
algo.theta_hat = np.zeros(d)


def choose(actions, t):
    arm_set = RoundArms(actions)
    original = algo.update_ucb_bonus

    def bonus():
        original()
        algo.ucb_bonus = radius_as_run(algo.ucb_bonus, p)

    algo.update_ucb_bonus = bonus
    arm = algo.pull(arm_set)
    algo.update_ucb_bonus = original
    assert arm is arm_set.arm_list[arm_set.chosen] or np.array_equal(arm, actions[arm_set.chosen])
    return arm_set.chosen


def learn(x, y):
    algo.learn(x, y)
    for _ in range(50):
        before = algo.theta_hat.copy()
        algo.arms.pop()
        algo.rewards.pop()
        algo.learn(x, y)
        if np.linalg.norm(algo.theta_hat - before) <= 1e-14 * (1 + np.linalg.norm(algo.theta_hat)):
            break


play(trace, choose, learn)
