build-san/orchestrator/perfsweep_main.o: orchestrator/perfsweep_main.c \
 orchestrator/cli.h
orchestrator/cli.h:
