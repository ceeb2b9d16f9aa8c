build-san/orchestrator/runner.o: orchestrator/runner.c \
 orchestrator/runner.h orchestrator/backend.h common/error.h \
 orchestrator/config.h collectors/regex_collect.h \
 collectors/measurement.h designs/plan.h orchestrator/store.h \
 collectors/experiment.h common/strmap.h collectors/wall.h \
 common/strbuf.h common/xalloc.h orchestrator/template.h
orchestrator/runner.h:
orchestrator/backend.h:
common/error.h:
orchestrator/config.h:
collectors/regex_collect.h:
collectors/measurement.h:
designs/plan.h:
orchestrator/store.h:
collectors/experiment.h:
common/strmap.h:
collectors/wall.h:
common/strbuf.h:
common/xalloc.h:
orchestrator/template.h:
