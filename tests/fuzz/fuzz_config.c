/* libFuzzer target: campaign config files never crash config_load. */
#include "campaign/config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz-config-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	struct campaign_config c;
	struct perr err;
	config_load(&c, path, &err);
	config_release(&c);
	unlink(path);
	return 0;
}
