#!/usr/bin/env python3
# policy: OFULog-r
# repo: https://github.com/criteo-research/logistic_bandit
# commit: d5e8aa2ce94020f449d6abd80aebfef1abe55107
# quirks: __init__ draws θ̂ ~ N(0, I) (np.random, ofulogr.py line 40): θ̂_1 = 0, the regularised MLE of no data, as eofd
# quirks: learn() takes five undamped Newton steps (lines 70-76): learn() is called again on the same observation (popped and re-appended) until a call moves θ̂ by ≤ 1e-14·(1 + ‖θ̂‖), i.e. Newton run to convergence, as eofd; ln det H_t stays theirs (the Hessian of their last step)
# quirks: lazy_update_fr = 10 (line 67: after 200 rounds the MLE is refitted every tenth round only): lazy_update_fr = 1
# quirks: ctr == 1 (the round after the first in a fresh instance) scores every action by np.random.normal (line 107-108): ctr is held at 0 when choosing, so every round is planned
# quirks: λ = dim is hard-coded (lines 38-39, 66: λ_t = dim·ln(2 + n)): λ_1 and H_1 set to eofd's λ, and dim's product with ln(2 + n) made eofd's λ·ln(2 + n) (an int subclass); d itself (np.eye, χ²_d, (d/2)·ln λ_t) is unchanged
# quirks: the plan runs COBYLA for 20 iterations from θ̂ (lines 110-117): scipy.optimize.minimize in their module is replaced by an exact solver of the same problem (their objective, their logistic_loss − log_loss_hat ≤ ucb_bonus constraint), nested Brent roots with Newton centring (ours, independent of eofd's Newton-in-s)
# quirks: the norm constraint ‖θ‖ ≤ param_norm_ub² (line 114; the paper's Θ is ‖θ‖ ≤ S): ‖θ‖ ≤ S, the square root of their bound
# quirks: when the sub-level set misses the ball (S below ‖θ*‖) their COBYLA returns an infeasible point; here, as in eofd, the ball is dropped for that round
# quirks: ties: the first value within 1e-12 (relative) of the best, eofd's rule (their ArmSet.argmax takes the exact maximum)
# quirks: ucb_bonus with eofd's β: 'theory'/'order' keep theirs (times beta_scale); a numeric β gives β·beta_scale
"""Plays OFULog-r of criteo-research/logistic_bandit (logbexp/algorithms/ofulogr.py) on an eofd trace."""
import math
import os
import sys
from types import SimpleNamespace

import numpy as np
from scipy.optimize import brentq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _arms import RoundArms  # noqa: E402
from _trace import load, play  # noqa: E402

trace, params = load()
import logbexp.algorithms.ofulogr as ofulogr  # noqa: E402

p = params['params']
d = trace['d']
lam = float(p['lambda'])
EPS = np.finfo(float).eps


class Dim(int):
    """d, except that d·ln(2 + n) (their λ_t, line 66) is λ·ln(2 + n) with eofd's λ."""

    def __mul__(self, other):
        if isinstance(other, (float, np.floating)):
            return lam * float(other)
        return int.__mul__(self, other)


algo = ofulogr.OFULogr(param_norm_ub=p['S'], arm_norm_ub=params['derived']['D'], dim=d, failure_level=p['delta'], lazy_update_fr=1)
algo.dim = Dim(d)
algo.l2reg = lam
algo.hessian_matrix = lam * np.eye(d)
algo.theta_hat = np.zeros(d)
beta = p['beta']
scale = float(p['beta_scale'])


def data():
    X = np.array(algo.arms, dtype=float).reshape(-1, d)
    return X, np.array(algo.rewards, dtype=float)


def center(theta, ridge, x, s):
    """argmin L(θ) + (ridge/2)‖θ‖² − s·xᵀθ (L: their log-loss with λ_t = algo.l2reg), damped Newton from θ."""
    X, r = data()
    lam_total = algo.l2reg + ridge

    def objective(t):
        z = X @ t
        return np.sum(np.logaddexp(0, z) - r * z) + 0.5 * lam_total * t @ t - s * x @ t

    theta = theta.copy()
    previous = np.inf
    for _ in range(200):
        q = 1 / (1 + np.exp(-(X @ theta)))
        g = X.T @ (q - r) + lam_total * theta - s * x
        H = (X.T * (q * (1 - q))) @ X + lam_total * np.eye(d)
        step = np.linalg.solve(H, g)
        size = np.linalg.norm(step)
        if g @ step > 1e-10 * (1 + abs(objective(theta))):
            f, t = objective(theta), 1.0
            while t > 1e-16 and objective(theta - t * step) > f - 1e-4 * t * (g @ step):
                t /= 2
            theta = theta - t * step
            continue
        theta = theta - step
        if size <= 4 * EPS * (1 + np.linalg.norm(theta)) or size >= 0.5 * previous:
            break
        previous = size
    return theta


def root(f, hi):
    """A root of the increasing f on [0, ∞) with f(0) < 0: hi doubled until f(hi) ≥ 0, then Brent."""
    while f(hi) < 0:
        hi *= 2
    return brentq(f, 0.0, hi, xtol=1e-300, rtol=4 * EPS, maxiter=500)


def level_solution(x, F, level, ridge, R):
    """argmax xᵀθ s.t. F(θ) + (ridge/2)(‖θ‖² − R²) ≤ level: θ(s) = argmin L + (ridge/2)‖θ‖² − s·xᵀθ, s a Brent root."""
    state = {'theta': center(algo.theta_hat, ridge, x, 0.0)}

    def excess(s):
        state['theta'] = center(state['theta'], ridge, x, s)
        t = state['theta']
        return F(t) + 0.5 * ridge * (t @ t - R * R) - level

    s = root(excess, 1.0)
    excess(s)
    return state['theta']


round_cache = {}


def feasible(F, level, R):
    """min_{‖θ‖≤R} L ≤ L̂ + level: θ̂ inside the ball, or θ(ν) = argmin L + (ν/2)‖θ‖² with ‖θ(ν)‖ = R (Brent in ν)."""
    key = (len(algo.rewards), level, R)
    if key not in round_cache:
        if np.linalg.norm(algo.theta_hat) <= R:
            round_cache[key] = True
        else:
            zero = np.zeros(d)
            state = {'theta': algo.theta_hat.copy()}

            def shrink(nu):
                state['theta'] = center(state['theta'], nu, zero, 0.0)
                return R - np.linalg.norm(state['theta'])

            shrink(root(shrink, 1.0))
            round_cache[key] = F(state['theta']) <= level
    return round_cache[key]


def exact_minimize(obj, x0, method=None, constraints=(), options=None):
    """In place of COBYLA: argmin of their objective −armᵀθ under their two constraints, exactly."""
    x = -np.array([obj(e) for e in np.eye(d)])
    F, level = constraints[0].fun, constraints[0].ub
    R = math.sqrt(constraints[1].ub)
    if level <= 0:
        return SimpleNamespace(x=algo.theta_hat.copy())
    ok = feasible(F, level, R)
    norm_x = np.linalg.norm(x)
    if norm_x == 0:
        return SimpleNamespace(x=np.zeros(d))
    ball = R * x / norm_x
    if ok and F(ball) <= level:
        return SimpleNamespace(x=ball)
    theta = level_solution(x, F, level, 0.0, R)
    if not ok or theta @ theta <= R * R:
        return SimpleNamespace(x=theta)
    state = {}

    def outside(a):
        state['theta'] = level_solution(x, F, level, a, R)
        return R * R - state['theta'] @ state['theta']

    a = root(outside, 1.0)
    outside(a)
    return SimpleNamespace(x=state['theta'])


ofulogr.minimize = exact_minimize


def choose(actions, t):
    arm_set = RoundArms(actions)
    original = algo.update_ucb_bonus

    def bonus():
        original()
        algo.ucb_bonus = beta * scale if isinstance(beta, (int, float)) else algo.ucb_bonus * scale

    algo.update_ucb_bonus = bonus
    algo.ctr = 0
    algo.pull(arm_set)
    algo.update_ucb_bonus = original
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
