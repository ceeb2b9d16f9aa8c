build-san/collectors/experiment.o: collectors/experiment.c \
 collectors/experiment.h common/strmap.h common/xalloc.h
collectors/experiment.h:
common/strmap.h:
common/xalloc.h:
