"""What never leaves the instructor: the oracle, the trusted stages, the sandbox, class grading, the
Gradescope bundle, the student-kit release, the benchmark and the instructor's commands.

Of all of it only grader/instructor/trusted/ (the stages below the one probed) and the
sandbox's own confinement code ever enter a sandboxed child, and none of it ships in a kit.
"""
