/* version.c — what libvela reports about itself. */
#include <starpu.h>

const char *vela_version(void);

const char *vela_version(void)
{
	return VELA_VERSION_STRING;
}
