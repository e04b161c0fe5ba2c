"""Shared by the criteo-research/logistic_bandit adapters: a round's actions as the arm-set object their
pull() expects (logbexp/bandit/arm_set.py: a `type` that is not 'ball' and an `argmax(fun)`), choosing
by eofd's tie rule, β as eofd ran it, and the exact projections eofd takes where their code rescales or
searches approximately."""
import numpy as np
from scipy.optimize import brentq

#: eofd's tie rule (src/policies/optimistic-selector.ts TIE_TOLERANCE): scores within this relative
#: distance of the best are ties, which go to the lowest index.
TIE_TOLERANCE = 1e-12


class RoundArms:
    """One round's action list. argmax(fun) returns the first action whose score is within
    TIE_TOLERANCE (relative) of the best, and remembers its index (arm_set.py's argmax takes the
    first exact maximum: the two differ only on scores within 1e-12 of each other)."""
    type = 'tv_discrete'

    def __init__(self, actions):
        self.arm_list = actions
        self.chosen = None

    def argmax(self, fun):
        values = [fun(a) for a in self.arm_list]
        best = max(values)
        self.chosen = next(i for i, v in enumerate(values) if v >= best - TIE_TOLERANCE * abs(best))
        return self.arm_list[self.chosen]


def radius_as_run(radius, params):
    """The UCB radius eofd plays from the authors' one: their radius in β modes 'theory' and 'order'
    (their β has no hidden constants; eofd reads it for both), a constant √β for a numeric β, each
    times √beta_scale (eofd's beta_scale multiplies β = radius²)."""
    beta = params.get('beta', 'theory')
    scale = params.get('beta_scale', 1.0)
    if isinstance(beta, (int, float)):
        return float(np.sqrt(beta * scale))
    return float(radius * np.sqrt(scale))


def multiplier_root(excess):
    """The root ν > 0 of a projection's excess(ν), decreasing and positive at 0 (the point lies outside)."""
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2
    return brentq(excess, 0.0, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)


def project_onto_ball(matrix, u, radius):
    """argmin_{‖θ‖ ≤ r} ‖θ − u‖_V (V = matrix): u inside the ball, else θ = (V + νI)⁻¹Vu with ‖θ(ν)‖ = r."""
    if np.linalg.norm(u) <= radius:
        return u
    w, Q = np.linalg.eigh(matrix)
    c = Q.T @ u
    nu = multiplier_root(lambda nu: np.linalg.norm(w * c / (w + nu)) - radius)
    return Q @ (w * c / (w + nu))
