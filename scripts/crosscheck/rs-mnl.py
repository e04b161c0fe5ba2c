#!/usr/bin/env python3
# policy: RS-MNL
# repo: https://github.com/tanmaygoyal258/MNL_Limited_Adaptivity
# commit: d8bc55d64e0b78712c6fa7d52b6e9324f1ca9e0c
# quirks: MLE solver replaced: utils.minimize_loss_torch (1,000 full-batch torch SGD steps of size 1e-4 from the previous estimate, which stop far from the optimum) by Newton's method on the optimum of the same objective, summed cross-entropy + weight decay lmbda/2 (i.e. + (lmbda/4)||theta||^2), to ||grad|| <= 1e-12 (1 + sum ||x_s||)
# quirks: null outcomes kept in the fit: their CrossEntropyLoss(ignore_index = 0) drops every round whose outcome is 0 from the loss; the replacement fits every round
# quirks: ties matched: eofd counts scores within 1e-12 (relative) of the best as ties and takes the lowest index; theirs takes np.argmax of exact floats, so rounding noise picks among unit-norm actions whenever theta = 0 and H is a multiple of I (round 1); calculate_UCB's result is rounded to 12 significant digits, so near-equal scores compare equal and np.argmax keeps the first
# quirks: radius matched: gamma (RS_MNL.py:34) times sqrt(beta_scale); a numeric beta sets gamma = sqrt(beta * beta_scale); reward_norm_ub = ||r||_2 of the trace's reward (main.py:64 scales r to that norm)
# quirks: played index: their play_arm returns the arm, not its index; the index is the position of that very array object (np.argmax's first maximum)
# quirks: outcomes: y drawn by eofd's rule from the trace's u (their oracle draws with its own numpy generator); torch and tqdm, imported at module level but unused once the solver is replaced, are stubbed when absent
"""Runs the authors' RS_MNL (RS_MNL.py) on an eofd trace and prints its actions as JSON."""
import math
import os
import sys
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _newton import minimize  # noqa: E402
from _trace import load, play  # noqa: E402


def stub_missing(name, attributes):
    try:
        __import__(name)
    except ImportError:
        module = types.ModuleType(name)
        for key, value in attributes.items():
            setattr(module, key, value)
        sys.modules[name] = module


def newton_mnl(theta, X, Y, lmbda, dimension):
    """argmin sum_s CE(y_s; [0, theta x_s]) + (lmbda/4)||theta||^2 (their loss's gradient carries weight decay lmbda/2), every round kept."""
    theta = np.array(theta, dtype=float, copy=True)
    if len(Y) == 0:
        return theta, True
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=int)
    d = dimension
    K = len(theta) // d
    ridge = lmbda / 2
    scale = 1.0 + float(np.sum(np.linalg.norm(X, axis=1)))
    onehot = np.zeros((len(Y), K))
    for s, y in enumerate(Y):
        if y > 0:
            onehot[s, y - 1] = 1.0

    def probabilities(th):
        z = X @ th.reshape(K, d).T  # t x K
        shift = np.maximum(0.0, z.max(axis=1, keepdims=True))
        e = np.exp(z - shift)
        null = np.exp(-shift)
        total = null + e.sum(axis=1, keepdims=True)
        return e / total, (null / total)[:, 0]

    def loss(th):
        sigma, null = probabilities(th)
        chosen = np.where(Y == 0, null, sigma[np.arange(len(Y)), np.maximum(Y - 1, 0)])
        return -float(np.sum(np.log(chosen))) + 0.5 * ridge * float(th @ th)

    def derivatives(th):
        sigma, _null = probabilities(th)
        grad = ((sigma - onehot).T @ X).reshape(-1) + ridge * th
        hess = ridge * np.eye(K * d)
        for i in range(K):
            for j in range(K):
                w = (sigma[:, i] if i == j else 0) - sigma[:, i] * sigma[:, j]
                hess[i * d:(i + 1) * d, j * d:(j + 1) * d] += (X * w[:, None]).T @ X
        return grad, hess

    return minimize(theta, loss, derivatives, scale), True


def main():
    trace, run = load()
    params = run['params']
    derived = run.get('derived', {})
    d, K, T = int(trace['d']), int(trace['K']), int(run['T'])
    S = float(params.get('S', derived.get('S')))
    delta = float(params['delta'])
    beta = params.get('beta', 'theory')
    beta_scale = float(params.get('beta_scale', 1))
    reward = np.array(trace['reward'][1:], dtype=float)

    # scipy looks torch up in sys.modules (array-API checks): imported first, and the stub has a Tensor type.
    import scipy.linalg  # noqa: F401
    import scipy.optimize  # noqa: F401
    import scipy.stats  # noqa: F401
    stub_missing('torch', {'Tensor': type('Tensor', (), {})})
    stub_missing('tqdm', {'tqdm': lambda iterable, **_: iterable})
    import RS_MNL

    RS_MNL.minimize_loss_torch = newton_mnl
    exact_ucb = RS_MNL.RS_MNL.calculate_UCB
    RS_MNL.RS_MNL.calculate_UCB = lambda self, arm: float(f'{exact_ucb(self, arm):.12g}')

    their = {
        'reward_vec': reward,
        'dim_arms': d,
        'num_arms': len(trace['rounds'][0]['actions']),
        'num_contexts': T,
        'num_outcomes': K,
        'reward_norm_ub': float(np.linalg.norm(reward)),
        'param_norm_ub': S,
        'horizon': T,
        'failure_level': delta,
        'arm_seed': 0,
        'theta_star': np.asarray(trace['W_star'], dtype=float).reshape(-1).tolist(),
    }
    alg = RS_MNL.RS_MNL(their, None)
    if isinstance(beta, (int, float)):
        alg.gamma = math.sqrt(beta * beta_scale)
    else:
        alg.gamma = alg.gamma * math.sqrt(beta_scale)

    played = []

    def choose(actions, t):
        arm = alg.play_arm(actions, t - 1)
        played[:] = [arm]
        return next(i for i, candidate in enumerate(actions) if candidate is arm)

    play(trace, choose, lambda x, y: alg.update(y, played[0]))

if __name__ == '__main__':
    main()
