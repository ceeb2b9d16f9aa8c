build-san/orchestrator/plan_build.o: orchestrator/plan_build.c \
 orchestrator/plan_build.h designs/plan.h common/error.h \
 orchestrator/config.h collectors/regex_collect.h \
 collectors/measurement.h orchestrator/backend.h
orchestrator/plan_build.h:
designs/plan.h:
common/error.h:
orchestrator/config.h:
collectors/regex_collect.h:
collectors/measurement.h:
orchestrator/backend.h:
