build-san/collectors/regex_collect.o: collectors/regex_collect.c \
 collectors/regex_collect.h collectors/measurement.h common/error.h \
 common/strbuf.h common/xalloc.h
collectors/regex_collect.h:
collectors/measurement.h:
common/error.h:
common/strbuf.h:
common/xalloc.h:
