build-san/common/error.o: common/error.c common/error.h
common/error.h:
