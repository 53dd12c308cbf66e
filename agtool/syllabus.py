"""The lab's six stages, in one place: what the notebooks, the kit, the grader and the tests all number.

Each stage is one notebook, one part of agtool/tools.py, one pytest marker and one
block of the grade. Nothing else in the project spells a stage's title, points or
notebook: it reads them here.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    number: int
    title: str  # as the grade's tables and feedback name it
    points: int  # what the stage's checks add up to
    notebook: str  # notebooks/<notebook>
    writes: str  # what the student writes, as the README's table says

    @property
    def marker(self) -> str:
        """The pytest marker of the stage's tests: `pytest -m stage3`."""
        return f"stage{self.number}"


STAGES = {
    stage.number: stage
    for stage in (
        Stage(1, "contract", 10, "01_contract.ipynb", "TOOLS, describe_tools()"),
        Stage(2, "argument check", 20, "02_check_args.ipynb", "check_args()"),
        Stage(3, "result check", 20, "03_check_result.ipynb", "check_result()"),
        Stage(4, "door", 15, "04_door.ipynb", "call_tool()"),
        Stage(5, "memo", 15, "05_memo.ipynb", "memo_key(), call_memo()"),
        Stage(6, "retry graph", 20, "06_retry_graph.ipynb", "FIXES, build_graph(), run()"),
    )
}
