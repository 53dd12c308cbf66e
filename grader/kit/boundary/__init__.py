"""The process boundary: a submission's process on one side, the grader on the other.

The child's side (runner.py, spies.py) and the wire (channel.py, values.py) enter a sandboxed child;
the parent's side (exchange.py) never does.
"""
