#!/usr/bin/env python3
# policy: ada-OFU-ECOLog
# repo: https://github.com/criteo-research/logistic_bandit
# commit: d5e8aa2ce94020f449d6abd80aebfef1abe55107
# quirks: learn() takes a fixed number of projected-gradient steps for θ_{t+1} and θ̄ (ecolog.py lines 50-65), as many as precision = 1/ctr asks (optimization.py lines 21-22): precision 1e-12, so both steps run to their minimisers, which eofd computes exactly
# quirks: project_ellipsoid (optimization.py lines 64-104) leaves a point up to 1e-3 outside the ellipsoid unprojected and finds the projection's multiplier by a bounded scalar search to 1e-5: the exact projection onto ‖θ‖ ≤ S (in their z = Ṽ^{1/2}θ coordinates), only when the point lies outside
# quirks: λ = 1 is set in __init__ (self.l2reg, line 30): set to the λ eofd ran with (its default for ada-OFU-ECOLog is theirs, 1), and Ṽ_1 = λI with it
# quirks: learn() raises when the data-dependent condition μ̇(θ̄ᵀx)/μ̇(θᵀx) ≤ 2 fails (line 77), where eofd counts the round and goes on: the adapter stops there with the round's number (run it where the condition holds, e.g. its default λ)
# quirks: ArmSet.argmax takes the first exact maximum: the adapter's arm set takes eofd's tie rule (within 1e-12 relative, lowest index)
"""Plays ada-OFU-ECOLog of criteo-research/logistic_bandit (logbexp/algorithms/ecolog.py) on an eofd trace."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _arms import RoundArms, multiplier_root, radius_as_run  # noqa: E402
from _trace import load, play  # noqa: E402

trace, params = load()
import logbexp.algorithms.ecolog as ecolog  # noqa: E402
import logbexp.utils.optimization as optimization  # noqa: E402


def project_exactly(x_to_proj, ell_center, ecc_matrix, radius, safety_check=False):
    """argmin ‖z − x‖ over {z: (z − c)ᵀA⁻¹(z − c) ≤ r²}: z − c = A(A + νI)⁻¹(x − c), ν ≥ 0 the 1-D root."""
    w, Q = np.linalg.eigh(ecc_matrix)
    b = Q.T @ (x_to_proj - ell_center)
    if np.sum(b * b / w) <= radius ** 2:
        return x_to_proj
    nu = multiplier_root(lambda nu: np.sum(w * b * b / (w + nu) ** 2) - radius ** 2)
    return ell_center + Q @ (w * b / (w + nu))


optimization.project_ellipsoid = project_exactly

p = params['params']
PRECISION = 1e-12
solve, solve_bar = ecolog.fit_online_logistic_estimate, ecolog.fit_online_logistic_estimate_bar
ecolog.fit_online_logistic_estimate = lambda **kw: solve(**{**kw, 'precision': PRECISION})
ecolog.fit_online_logistic_estimate_bar = lambda **kw: solve_bar(**{**kw, 'precision': PRECISION})


class RunEcolog(ecolog.EcoLog):
    def update_ucb_bonus(self):
        super().update_ucb_bonus()
        self.conf_radius = radius_as_run(self.conf_radius, p)


algo = RunEcolog(param_norm_ub=p['S'], arm_norm_ub=params['derived']['D'], dim=trace['d'], failure_level=p['delta'])
algo.l2reg = p['lambda']
algo.reset()


def learn(x, y):
    try:
        algo.learn(x, y)
    except ValueError as error:
        sys.exit(f'ada-ofu-ecolog.py: round {algo.ctr - 1}: {error}')


def choose(actions, t):
    arms = RoundArms(actions)
    algo.pull(arms)
    return arms.chosen


play(trace, choose, learn)
