build-san/designs/plan.o: designs/plan.c designs/plan.h common/error.h \
 common/xalloc.h
designs/plan.h:
common/error.h:
common/xalloc.h:
