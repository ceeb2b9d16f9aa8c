build-san/orchestrator/template.o: orchestrator/template.c \
 orchestrator/template.h common/strbuf.h
orchestrator/template.h:
common/strbuf.h:
