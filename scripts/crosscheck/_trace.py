"""Shared by the cross-check adapters (scripts/crosscheck/<policy>.py): reads the arguments run.mjs
passes, puts the user's checkout of the authors' repository on sys.path, and plays a trace with the
outcome rule of eofd (src/model/logistic.ts sampleOutcome), so that an adapter only says how the
authors' learner chooses and learns."""
import argparse
import json
import sys

import numpy as np


def load():
    """(trace, params) from --trace and --params; the --repo checkout goes on sys.path."""
    parser = argparse.ArgumentParser()
    parser.add_argument('--repo', required=True, help="a checkout of the authors' repository")
    parser.add_argument('--trace', required=True, help='a trace file (src/environments/trace.ts)')
    parser.add_argument('--params', required=True, help='what eofd ran with (written by run.mjs)')
    args = parser.parse_args()
    sys.path.insert(0, args.repo)
    with open(args.trace) as f:
        trace = json.load(f)
    with open(args.params) as f:
        params = json.load(f)
    return trace, params


def outcome(trace, x, u):
    """y ∈ {0..K} of action x under the trace's W*, drawn with the recorded uniform u, eq. (1)."""
    z = np.asarray(trace['W_star'], dtype=float) @ x
    top = max(0.0, float(z.max()))
    e = np.exp(z - top)
    inv = 1.0 / (np.exp(-top) + e.sum())
    cumulative = np.exp(-top) * inv
    if u < cumulative:
        return 0
    for k in range(len(z)):
        cumulative += e[k] * inv
        if u < cumulative:
            return k + 1
    return len(z)


def play(trace, choose, learn):
    """Plays every round: a = choose(actions, t) (0-based index, t 1-based), then learn(x, y).
    Prints {"actions": [...]} on stdout, as run.mjs expects."""
    chosen = []
    for t, rnd in enumerate(trace['rounds'], start=1):
        actions = [np.asarray(a, dtype=float) for a in rnd['actions']]
        a = int(choose(actions, t))
        chosen.append(a)
        learn(actions[a], outcome(trace, actions[a], rnd['u']))
    json.dump({'actions': chosen}, sys.stdout)
