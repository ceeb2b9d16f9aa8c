build-san/common/strmap.o: common/strmap.c common/strmap.h \
 common/xalloc.h
common/strmap.h:
common/xalloc.h:
