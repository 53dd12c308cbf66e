"""The probes, one module per stage; CHECKLISTS is what `grade` runs, in order."""

from grader.kit.checks import stage1, stage2, stage3, stage4, stage5, stage6

CHECKLISTS = {stage.CHECKLIST.number: stage.CHECKLIST for stage in (stage1, stage2, stage3, stage4, stage5, stage6)}
