build-san/orchestrator/cmd_status.o: orchestrator/cmd_status.c \
 orchestrator/cli.h orchestrator/store.h collectors/experiment.h \
 common/strmap.h collectors/measurement.h common/error.h designs/plan.h
orchestrator/cli.h:
orchestrator/store.h:
collectors/experiment.h:
common/strmap.h:
collectors/measurement.h:
common/error.h:
designs/plan.h:
