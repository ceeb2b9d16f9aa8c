build-san/collectors/wall.o: collectors/wall.c collectors/wall.h \
 collectors/measurement.h common/error.h common/xalloc.h
collectors/wall.h:
collectors/measurement.h:
common/error.h:
common/xalloc.h:
