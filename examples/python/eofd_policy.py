"""eofd's process-policy protocol, version 1, for Python (numpy only; docs/policies.md).

Write a class whose constructor takes the hello (the problem, the unit's seed and the entry's params)
and which has select and update; end it with ``serve(MyPolicy)``; name the script in a config entry:

    policies:
      - {command: [python3, my_policy.py], label: Mine, params: {alpha: 0.5}}

    class MyPolicy:
        def __init__(self, hello):        # hello.d, .K, .reward (r_0..r_K), .horizon, .trial,
            ...                           # .seed (hex), .seed_int, .max_action_norm, .params (dict)
        def select(self, features, t):    # features: (count, d) float64 array; t: the round, from 1
            return index                  # an int in 0..count-1
        def update(self, x, outcome):     # x: the played action's d features; outcome in 0..K
            ...
        def end(self):                    # optional: the last round was played
            ...

Vectors arrive as base64 of little-endian doubles (exact, and fast to decode). Anything the policy
prints goes to stderr (stdout carries the protocol); an exception is answered as an error, which fails
the unit with the exception's message, and ends the process.
"""
import base64
import json
import sys
import time
import traceback

import numpy as np

PROTOCOL = 1


class Hello:
    """The hello message, its fields as attributes (params stays a dict)."""

    def __init__(self, message):
        self.__dict__.update(message)
        self.reward = np.asarray(message["reward"], dtype=np.float64)


def _vector(value):
    if isinstance(value, str):
        return np.frombuffer(base64.b64decode(value), dtype="<f8")
    return np.asarray(value, dtype=np.float64)


def serve(factory, stdin=None, stdout=None):
    """Answers eofd's messages on stdin with ``factory(hello)``'s decisions until eofd ends it."""
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    sys.stdout = sys.stderr  # a print() in the policy must not land in the protocol
    policy, d = None, 0

    def send(answer):
        out.write(json.dumps(answer) + "\n")
        out.flush()

    for line in stdin:
        message = json.loads(line)
        kind = message.get("type")
        start = time.perf_counter()
        try:
            if kind == "hello":
                if message["protocol"] != PROTOCOL:
                    raise ValueError(f"protocol {message['protocol']}; this helper speaks {PROTOCOL}")
                d = message["d"]
                policy = factory(Hello(message))
                send({"type": "ready", "protocol": PROTOCOL, "encoding": "base64"})
            elif kind == "select":
                features = _vector(message["features"]).reshape(message["count"], d)
                action = policy.select(features, message["t"])
                if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                    raise TypeError(f"select returned {action!r}, not an int")
                send({"action": int(action), "ms": (time.perf_counter() - start) * 1e3})
            elif kind == "update":
                policy.update(_vector(message["x"]), int(message["outcome"]))
                send({"ms": (time.perf_counter() - start) * 1e3})
            elif kind == "end":
                if hasattr(policy, "end"):
                    policy.end()
                send({})
                return
            else:
                raise ValueError(f"unknown message type {kind!r}")
        except Exception as error:  # noqa: BLE001 - every failure is reported to eofd
            traceback.print_exc(file=sys.stderr)
            send({"error": f"{type(error).__name__}: {error}"})
            sys.exit(1)
