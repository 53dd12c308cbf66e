# Hostile twist, appended to the reference tools.py at test time:
# stage 3's check_result never returns. Only stage 3 may lose points.


def check_result(name, value):
    while True:
        pass
