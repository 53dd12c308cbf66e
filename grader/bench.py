"""python -m grader.bench: grading a class against executing the notebooks (grader/instructor/grading_speed.py)."""

from grader.instructor.grading_speed import main

if __name__ == "__main__":
    main()
