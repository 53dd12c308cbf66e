"""The probes, one module per stage; STAGES is what `grade` runs, in order."""

from grader.kit.checks import stage1, stage2, stage3, stage4, stage5, stage6

STAGES = {stage.STAGE.number: stage.STAGE for stage in (stage1, stage2, stage3, stage4, stage5, stage6)}
