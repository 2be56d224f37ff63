/* flagsplit build probe: is the system zlib's inflater there?  Compiled and linked (not run) by
 * build.rs with the `cc` crate's compiler, like autoconf's AC_CHECK_LIB([z], [inflateInit2_]). */
#include <zlib.h>

int main(void)
{
	z_stream s = {0};
	int ret = inflateInit2(&s, 15);
	inflateEnd(&s);
	return ret != Z_OK;
}
