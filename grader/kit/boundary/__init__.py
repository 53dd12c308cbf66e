"""The process boundary: a submission's process on one side, the grader on the other.

The child's side (runner.py: imports the submission and answers requests; spies.py: the
tool bodies it asks the parent to run) and the wire (channel.py: frames and their limits;
values.py: what JSON has no word for) enter a sandboxed child; the parent's side
(exchange.py: what it takes from the child, and the text it cleans) never does.
"""
