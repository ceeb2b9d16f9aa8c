build-san/orchestrator/cmd_export.o: orchestrator/cmd_export.c \
 collectors/experiment.h common/strmap.h orchestrator/cli.h \
 orchestrator/store.h collectors/measurement.h common/error.h \
 designs/plan.h orchestrator/template.h
collectors/experiment.h:
common/strmap.h:
orchestrator/cli.h:
orchestrator/store.h:
collectors/measurement.h:
common/error.h:
designs/plan.h:
orchestrator/template.h:
