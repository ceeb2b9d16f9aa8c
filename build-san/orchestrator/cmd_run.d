build-san/orchestrator/cmd_run.o: orchestrator/cmd_run.c common/xalloc.h \
 orchestrator/cli.h orchestrator/config.h collectors/regex_collect.h \
 collectors/measurement.h common/error.h designs/plan.h \
 orchestrator/backend.h orchestrator/plan_build.h orchestrator/runner.h \
 orchestrator/store.h collectors/experiment.h common/strmap.h
common/xalloc.h:
orchestrator/cli.h:
orchestrator/config.h:
collectors/regex_collect.h:
collectors/measurement.h:
common/error.h:
designs/plan.h:
orchestrator/backend.h:
orchestrator/plan_build.h:
orchestrator/runner.h:
orchestrator/store.h:
collectors/experiment.h:
common/strmap.h:
