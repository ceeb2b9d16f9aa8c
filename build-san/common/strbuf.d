build-san/common/strbuf.o: common/strbuf.c common/strbuf.h \
 common/xalloc.h
common/strbuf.h:
common/xalloc.h:
