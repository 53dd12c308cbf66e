"""What may enter a sandboxed child or ship in the student kit: the kit copies this package whole.

The child-side runner, the values that cross the channel, the checks' requests and
judges (which read the oracle only through trusted.py, absent in the kit), the public
cases, the reports. Nothing here solves a stage.
"""
