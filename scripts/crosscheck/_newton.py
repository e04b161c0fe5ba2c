"""Shared by the adapters that replace an authors' inexact MLE solver (scipy BFGS, SGD) with an exact one:
damped Newton steps with Armijo backtracking to ‖∇L‖ ≤ 1e-12·(1 + Σ‖x_s‖), the tolerance of eofd's
src/policies/kit/mle.ts."""
import numpy as np


def minimize(theta, loss, derivatives, scale, steps=100):
    """argmin of a smooth, strictly convex loss from theta: derivatives(θ) gives (∇L, ∇²L)."""
    value = loss(theta)
    for _ in range(steps):
        grad, hess = derivatives(theta)
        if np.linalg.norm(grad) <= 1e-12 * scale:
            break
        step = np.linalg.solve(hess, grad)
        decrease = float(grad @ step)
        if decrease <= 1e-10 * (1 + abs(value)):
            theta = theta - step
            value = loss(theta)
            continue
        size = 1.0
        for _ in range(60):
            trial = theta - size * step
            nxt = loss(trial)
            if nxt <= value - 1e-4 * size * decrease:
                break
            size *= 0.5
        if not nxt <= value:
            break
        theta, value = trial, nxt
    return theta
