build-san/orchestrator/store.o: orchestrator/store.c orchestrator/store.h \
 collectors/experiment.h common/strmap.h collectors/measurement.h \
 common/error.h designs/plan.h common/strbuf.h common/xalloc.h
orchestrator/store.h:
collectors/experiment.h:
common/strmap.h:
collectors/measurement.h:
common/error.h:
designs/plan.h:
common/strbuf.h:
common/xalloc.h:
