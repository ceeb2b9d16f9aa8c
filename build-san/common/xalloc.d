build-san/common/xalloc.o: common/xalloc.c common/xalloc.h
common/xalloc.h:
