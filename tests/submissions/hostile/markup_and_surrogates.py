# Hostile twist, appended to the reference tools.py at test time:
# stage 2's check_args raises an exception whose message carries what breaks a
# report: a lone surrogate (not UTF-8 at all), HTML, a Markdown link and code fence,
# and terminal escapes. The grader must still write results.json and feedback.md,
# valid and readable, with the text shown as text: stage 2 loses points, no other.
def check_args(name, args):
    raise ValueError("\udc80 <img src=x onerror=alert(1)> [click](http://evil.example) ``` </details> \x1b[2J\x07")
