build-san/orchestrator/cli.o: orchestrator/cli.c orchestrator/cli.h
orchestrator/cli.h:
