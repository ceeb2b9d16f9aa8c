build-san/orchestrator/cmd_plan.o: orchestrator/cmd_plan.c \
 common/xalloc.h orchestrator/cli.h orchestrator/config.h \
 collectors/regex_collect.h collectors/measurement.h common/error.h \
 designs/plan.h orchestrator/backend.h orchestrator/plan_build.h \
 orchestrator/template.h
common/xalloc.h:
orchestrator/cli.h:
orchestrator/config.h:
collectors/regex_collect.h:
collectors/measurement.h:
common/error.h:
designs/plan.h:
orchestrator/backend.h:
orchestrator/plan_build.h:
orchestrator/template.h:
