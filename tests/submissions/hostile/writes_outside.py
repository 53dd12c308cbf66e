# Hostile twist, appended to the reference tools.py at test time:
# at import the module tries to plant a file beside itself and in the folder above
# (in class mode: among the other students' submissions), then carries on as the
# reference. Where Landlock works, both writes are refused.
from pathlib import Path

for _folder in Path(__file__).resolve().parents[:2]:
    try:
        (_folder / "planted.txt").write_text("planted by a submission")
    except OSError:
        pass
