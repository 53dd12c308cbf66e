# Hostile twist, appended to the reference tools.py at test time:
# stage 1's describe_tools prints gigabytes before answering correctly.
# Only stage 1 may lose points.
_reference_describe_tools = describe_tools


def describe_tools():
    line = "flood " * 1000
    for _ in range(1_000_000):
        print(line)
    return _reference_describe_tools()
