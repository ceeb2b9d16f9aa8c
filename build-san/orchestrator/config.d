build-san/orchestrator/config.o: orchestrator/config.c \
 orchestrator/config.h collectors/regex_collect.h \
 collectors/measurement.h common/error.h designs/plan.h \
 orchestrator/backend.h common/strbuf.h common/xalloc.h
orchestrator/config.h:
collectors/regex_collect.h:
collectors/measurement.h:
common/error.h:
designs/plan.h:
orchestrator/backend.h:
common/strbuf.h:
common/xalloc.h:
