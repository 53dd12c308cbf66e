# Hostile twist, appended to the reference tools.py at test time:
# the module ends the process that imports it, past every `except` and `finally`.
import os

os._exit(0)
