# Hostile twist, appended to the reference tools.py at test time:
# the module ends the process that imports it, claiming success.
import sys

sys.exit(0)
