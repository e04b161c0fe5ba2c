#!/usr/bin/env python3
# policy: OFULog+
# repo: https://github.com/nick-jhlee/logistic_bandit
# commit: 8434b6d8e590f3d8a66a2f1f5170a166ea1c5192
# quirks: logistic_bandit_algo.py imports ipdb (a debugger, never called): stubbed empty
# quirks: __init__ sets ctr = 0 and one_bandit_exp never calls reset(), so the ‖x‖ branch of compute_optimistic_reward (line 85, meant for round 1) runs in round 2 and ignores the first observation: reset() is called before round 1, as the branch intends
# quirks: SLSQP stops at tol (1e-7 in the class, 1e-5 from generate_configs.py) and 100 iterations: tol = 1e-12 and maxiter = 1000, for both the MLE (lines 65–67) and the optimistic value (line 96)
# quirks: where S·x/‖x‖ lies in the confidence set the maximum is S‖x‖, which SLSQP returns only to its tolerance, so exact ties (every action in round 1, and unit-norm actions while the set holds the ball's maximisers) went to solver noise: those actions get S‖x‖ (the ctr == 1 branch's ‖x‖, times S), and the argmax takes the lowest index within 1e-12 (relative) of the best, eofd's tie rule, in place of max() over noisy values
# quirks: a numeric beta or a beta_scale: ucb_bonus set to it after update_ucb_bonus (theirs is the 'theory' radius, eofd's default)
"""Plays OFULogPlus of nick-jhlee/logistic_bandit (logbexp/algorithms/ofulogplus.py) on an eofd trace."""
import json
import os
import sys
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _trace import load, outcome  # noqa: E402

trace, params = load()
sys.modules.setdefault('ipdb', types.ModuleType('ipdb'))
import logbexp.algorithms.ofulogplus as module  # noqa: E402

their_minimize = module.minimize


def minimize(*args, **kwargs):
    """Their SLSQP call with the iteration cap raised."""
    return their_minimize(*args, options={'maxiter': 1000}, **kwargs)


module.minimize = minimize

p = params['params']
d = trace['d']
S = p['S']
algo = module.OFULogPlus(param_norm_ub=S, arm_norm_ub=1.0, dim=d, failure_level=p['delta'], horizon=params['T'], tol=1e-12)
algo.reset()
TIE = 1e-12


def choose(actions):
    """pull() (lines 73–77) with the exact ball case and eofd's tie rule."""
    algo.update_ucb_bonus()
    beta, scale = p.get('beta', 'theory'), p.get('beta_scale', 1)
    algo.ucb_bonus = beta * scale if isinstance(beta, (int, float)) else algo.ucb_bonus * scale
    algo.log_loss_hat = algo.neg_log_likelihood_full(algo.theta_hat)
    values = []
    for x in actions:
        norm = np.linalg.norm(x)
        ball = S * x / norm
        if algo.neg_log_likelihood_full(ball) - algo.log_loss_hat <= algo.ucb_bonus:
            values.append(S * norm)
        else:
            values.append(float(algo.compute_optimistic_reward(x)))
    best = max(values)
    return next(a for a, v in enumerate(values) if v >= best - TIE * abs(best))


chosen = []
for t, rnd in enumerate(trace['rounds'], start=1):
    actions = [np.asarray(a, dtype=float) for a in rnd['actions']]
    a = choose(actions)
    chosen.append(a)
    algo.learn(actions[a], outcome(trace, actions[a], rnd['u']))
json.dump({'actions': chosen}, sys.stdout)
