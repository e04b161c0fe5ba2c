#!/usr/bin/env python3
# policy: DBSLinUCB
# repo: https://github.com/ekshustova/PSI_LinUCB
# commit: 6931e40b97ae0e925e7696a815d8d5384e76e3c3
# quirks: imports of modules absent from the repository (utils, line_profiler): stubbed empty (neither is called by dbsl.py or the dyadic sketch)
# quirks: RegularizedFD.fit is fast FD (buffers 2ℓ−1 rows, one SVD every ℓ rows, frequent_directions.py lines 155–183): replaced by classical FD (an SVD and shrink at every row once ℓ rows are held), the FD of eofd's sketch; the SVD, shrink and H = (σ² + λ)⁻¹ are theirs
# quirks: robust=True by default (λ += the discarded σ²_{ℓ+1}, lines 162–163): robust=False, eofd's sketch: fd
# quirks: RegularizedFD.__iadd__ adds the merged blocks' λ (line 189), so H of the stacked sketch uses (j+1)λ while the score and θ divide by λ: λ kept at λ
# quirks: DBSL.fit adds r·x to xy twice a round (dbsl.py lines 76 and 82): the second addition undone after each round, so θ_t = V_t⁻¹ Σ r_s x_s
# quirks: β is a constant there: set every round to eofd's √β_t (SOFUL's radius with m_t = min(d, Σ_j ℓ_j) and ρ = Σ of the discarded σ²), or to √β for a numeric beta
# quirks: eps is an absolute spectral error there: eps = delta_max·λ (eofd's budget Δ_t ≤ 1 + delta_max); ℓ_0 = params.m (1 under m: adaptive)
# quirks: the round-1 bonus is 0 (S empty, dbsl.py line 55) where eofd's is ‖x‖/√λ: no effect on unit-norm actions (every score ties; both take index 0)
"""Plays DBSL of ekshustova/PSI_LinUCB (models/dbsl.py, frequent_directions.py DyadicBlockSketching) on an eofd trace."""
import json
import math
import os
import sys
import types

import numpy as np
import scipy.linalg as linalg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _trace import load, outcome  # noqa: E402

trace, params = load()
# The repository imports two modules it does not ship.
sys.modules.setdefault('utils', types.ModuleType('utils'))
profiler = types.ModuleType('line_profiler')
profiler.profile = lambda f: f
sys.modules.setdefault('line_profiler', profiler)

import frequent_directions as fd  # noqa: E402
from models.dbsl import DBSL  # noqa: E402

discarded = [0.0]


def classical_fit(self, X):
    """Classical FD at every row (their reduce branch, lines 158–172, run once ℓ rows are held)."""
    if len(self.S) >= self.sketch_size:
        self.S = np.vstack([self.S, X])
        _, s, Vt = linalg.svd(self.S, full_matrices=False)
        sigma_squared = s**2
        if len(sigma_squared) > self.sketch_size:
            delta = sigma_squared[self.sketch_size]
            discarded[0] += delta
            if self.robust:
                self.lmd += delta
            sigma_squared = sigma_squared[: self.sketch_size] - sigma_squared[self.sketch_size]
            Vt = Vt[: self.sketch_size]
        self.S = Vt * np.sqrt(sigma_squared).reshape(-1, 1)
        self.H = np.diag(1 / (sigma_squared + self.lmd))
        return True
    # Their append branch (lines 174–183): the block inverse of SSᵀ + λI.
    p = self.H @ (self.S @ X)
    k = np.sum(np.square(X)) - X.reshape(1, -1) @ self.S.T @ p + self.lmd
    self.H = np.block([[self.H + np.outer(p, p) / k, -p.reshape(-1, 1) / k], [-p.reshape(1, -1) / k, 1 / k]])
    self.S = np.vstack([self.S, X])
    return False


fd.RegularizedFD.fit = classical_fit
their_iadd = fd.RegularizedFD.__iadd__


def iadd_same_lambda(self, other):
    """Their merge (lines 188–200) with the merged block's λ not added to the sum's."""
    saved = other.lmd
    other.lmd = 0.0
    try:
        return their_iadd(self, other)
    finally:
        other.lmd = saved


fd.RegularizedFD.__iadd__ = iadd_same_lambda

p = params['params']
d = trace['d']
lam = p['lambda']
l0 = 1 if p.get('m') == 'adaptive' else int(p['m'])
delta_max = p.get('delta_max', 0.1)
reward = np.asarray(trace['reward'], dtype=float)
D = params['derived']['D']
model = DBSL(d=d, sketch_size=l0, eps=delta_max * lam, beta=1.0, lmd=lam, robust=False)


def root_beta(t):
    """eofd's √β_t for DBSLinUCB: SOFUL's radius (src/policies/soful.ts sofulRadius) with the blocks' m_t and ρ."""
    beta, scale = p['beta'], p.get('beta_scale', 1)
    if isinstance(beta, (int, float)):
        return math.sqrt(beta * scale)
    sketch = model.sketch
    full = p.get('beta_rank') == 'full'
    m = d if full else min(d, sketch.inactive_block.length + sketch.active_block.length)
    rho = 0.0 if full else discarded[0]
    sigma = reward.max() / 2
    log_det = m * math.log(1 + (t - 1) * D * D / (m * lam)) + d * math.log(1 + rho / lam)
    radius = sigma * math.sqrt(log_det + 2 * math.log(1 / p['delta'])) + math.sqrt(lam) * p['S']
    return math.sqrt(radius**2 * scale)


chosen = []
for t, rnd in enumerate(trace['rounds'], start=1):
    actions = np.asarray(rnd['actions'], dtype=float)
    model.beta = root_beta(t)
    played = {}

    def observe(ind, x):
        played['index'] = int(ind)
        played['reward'] = float(reward[outcome(trace, x, rnd['u'])])
        return played['reward']

    model.fit(actions, observe)
    model.xy -= played['reward'] * actions[played['index']]
    chosen.append(played['index'])
json.dump({'actions': chosen}, sys.stdout)
