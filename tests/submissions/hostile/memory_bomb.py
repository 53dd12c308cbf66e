# Hostile twist, appended to the reference tools.py at test time:
# stage 5's memo_key eats memory until it cannot get more, and then keeps trying.
# Only stage 5 may lose points.


def memo_key(name, args):
    hog = []
    while True:
        try:
            hog.append(bytearray(64 * 1024 * 1024))
        except MemoryError:
            hog.clear()
