"""python -m grader.bench: grading a class against executing the notebooks (grader/instructor/grading_speed.py).

`--first-check [--rounds N ...]`: how long a student waits for check(N) (grader/instructor/check_speed.py).
`--kit-setup`: a student's first set-up of the kit, each way, in time and disk (grader/instructor/kit_speed.py).
"""

import sys


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    # Each bench imports its own alone: the class bench forks its graders, and the first-check
    # bench times imports in fresh kernels; neither should carry the other's modules.
    if "--kit-setup" in argv:
        from grader.instructor import kit_speed

        kit_speed.main()
    elif "--first-check" in argv:
        from grader.instructor import check_speed

        check_speed.main([arg for arg in argv if arg != "--first-check"])
    else:
        from grader.instructor import grading_speed

        grading_speed.main()


if __name__ == "__main__":
    main()
