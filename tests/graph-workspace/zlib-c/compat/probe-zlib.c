/* The `system` provider's probe: the build can compile against zlib.h and link zlib's inflater.
   Compiled and linked, never run. */
#include <zlib.h>

int main(void) {
    z_stream s = {0};
    return inflateInit2(&s, 15) != Z_OK;
}
