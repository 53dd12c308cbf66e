"""python -m grader.bench: grading a class against executing the notebooks (grader/instructor/bench.py)."""

from grader.instructor.bench import main

if __name__ == "__main__":
    main()
