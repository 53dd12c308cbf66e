"""What may enter a sandboxed child or ship in the student kit, which copies this package whole.

The child's runner, the checks' requests and judges (the oracle only through oracle_access.py), the
public cases, the reports. Nothing here solves a stage.
"""
