build-san/collectors/measurement.o: collectors/measurement.c \
 collectors/measurement.h common/xalloc.h
collectors/measurement.h:
common/xalloc.h:
