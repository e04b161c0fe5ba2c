"""LinUCB on the expected reward, with optional epsilon-greedy exploration: eofd's worked example of a
policy in Python (docs/policies.md). The reward of an action is modelled as linear in its features,
r_y ≈ θᵀx; each round plays the action of largest θᵀx + alpha·‖x‖_{A⁻¹} (ties: the lowest index),
or, with probability epsilon, one at random from the unit's seeded stream.

    - {command: [python3, linucb.py], label: LinUCB-py, params: {alpha: 0.5, lam: 1.0, epsilon: 0.0}}
"""
import numpy as np

from eofd_policy import serve


class LinUCB:
    def __init__(self, hello):
        params = hello.params
        self.alpha = float(params.get("alpha", 1.0))
        self.epsilon = float(params.get("epsilon", 0.0))
        self.reward = hello.reward  # r_0..r_K, r_0 = 0
        self.A_inv = np.eye(hello.d) / float(params.get("lam", 1.0))
        self.b = np.zeros(hello.d)
        self.rng = np.random.default_rng(hello.seed_int)  # the unit's seed: the same run, the same draws

    def select(self, features, t):
        if self.epsilon > 0 and self.rng.random() < self.epsilon:
            return int(self.rng.integers(len(features)))
        theta = self.A_inv @ self.b
        width = np.sqrt(np.einsum("ij,jk,ik->i", features, self.A_inv, features))
        return int(np.argmax(features @ theta + self.alpha * width))

    def update(self, x, outcome):
        # Sherman–Morrison: (A + xxᵀ)⁻¹ from A⁻¹.
        Ax = self.A_inv @ x
        self.A_inv -= np.outer(Ax, Ax) / (1.0 + x @ Ax)
        self.b += self.reward[outcome] * x


if __name__ == "__main__":
    serve(LinUCB)
