build-san/orchestrator/backend_local.o: orchestrator/backend_local.c \
 orchestrator/backend.h common/error.h common/xalloc.h
orchestrator/backend.h:
common/error.h:
common/xalloc.h:
